/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command channel's encodings, shared by its two ends: the guest's
 * server (tests/guest/cmdserver.c) and the host's client (tests/guestrun.c).
 * The protocol itself is described in cmdserver.c.
 */
#ifndef HTMTRACE_TEST_CHAN_H
#define HTMTRACE_TEST_CHAN_H

#include <stddef.h>
#include <string.h>

static unsigned int chan_crc_table[256];

static void chan_crc_init(void)
{
	for (unsigned int i = 0; i < 256; i++) {
		unsigned int c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		chan_crc_table[i] = c;
	}
}

/* CRC-32 (zlib's): crc32(crc32(0, a), b) == crc32(0, a b). */
static unsigned int crc32_update(unsigned int crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	crc = ~crc;
	while (len--)
		crc = chan_crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static const char b64[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* base64 of in[0..len) into out (4 * ((len + 2) / 3) characters, no NUL). */
static size_t base64_encode(const unsigned char *in, size_t len, char *out)
{
	size_t i, o = 0;

	for (i = 0; i < len; i += 3) {
		unsigned int v = in[i] << 16;
		size_t left = len - i;

		if (left > 1)
			v |= in[i + 1] << 8;
		if (left > 2)
			v |= in[i + 2];
		out[o++] = b64[v >> 18 & 63];
		out[o++] = b64[v >> 12 & 63];
		out[o++] = left > 1 ? b64[v >> 6 & 63] : '=';
		out[o++] = left > 2 ? b64[v & 63] : '=';
	}
	return o;
}

static int b64val(int c)
{
	const char *p = c ? strchr(b64, c) : NULL;

	return p ? (int)(p - b64) : -1;
}

/*
 * Decode the base64 text s[0..len) in place (padding only at the end) and
 * end it with a NUL; returns the decoded length, -1 if malformed.
 */
static long base64_decode(char *s, size_t len)
{
	size_t i, o = 0;

	if (len % 4)
		return -1;
	for (i = 0; i < len; i += 4) {
		int last = i + 4 == len;
		int a = b64val(s[i]), b = b64val(s[i + 1]);
		int c = last && s[i + 2] == '=' && s[i + 3] == '=' ? 0 : b64val(s[i + 2]);
		int d = last && s[i + 3] == '=' ? 0 : b64val(s[i + 3]);

		if (a < 0 || b < 0 || c < 0 || d < 0)
			return -1;
		s[o++] = a << 2 | b >> 4;
		if (!last || s[i + 2] != '=')
			s[o++] = (b << 4 | c >> 2) & 0xff;
		if (!last || s[i + 3] != '=')
			s[o++] = (c << 6 | d) & 0xff;
	}
	s[o] = '\0';
	return o;
}

#endif
