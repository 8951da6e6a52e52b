// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace: command-line values, names and formatting.
 *
 * Everything here is pure: no I/O, no printing, errors as -errno.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "compiler.h"
#include "parse.h"

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/**
 * parse_u64() - parse an unsigned number
 * @s: decimal digits, or 0x followed by hexadecimal digits
 * @val: out: the value
 *
 * No sign, no spaces, no octal: "010" is ten.
 *
 * Return: 0, -EINVAL if @s is not a number, -ERANGE if it does not fit.
 */
int parse_u64(const char *s, __u64 *val)
{
	unsigned int base = 10;
	__u64 v = 0;
	const char *p;

	if (!s)
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s)
		return -EINVAL;
	for (p = s; *p; p++) {
		int d = hex_digit(*p);

		if (d < 0 || (unsigned int)d >= base)
			return -EINVAL;
		if (v > (UINT64_MAX - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	*val = v;
	return 0;
}

/**
 * parse_mode() - parse an HTM mode, MASK:VALUE
 * @s: two numbers as parse_u64() reads them, joined by a colon
 * @mask: out: the mask, CONFIGURE's first parameter
 * @value: out: the value, its second parameter
 *
 * Return: 0 or -EINVAL.
 */
int parse_mode(const char *s, __u64 *mask, __u64 *value)
{
	const char *colon = s ? strchr(s, ':') : NULL;
	char head[32];
	size_t n;

	if (!colon)
		return -EINVAL;
	n = colon - s;
	if (n >= sizeof(head))
		return -EINVAL;
	memcpy(head, s, n);
	head[n] = '\0';
	if (parse_u64(head, mask) || parse_u64(colon + 1, value))
		return -EINVAL;
	return 0;
}

static const struct {
	const char *name;
	__u32 type;
} type_names[] = {
	{ "nest", HTMTRACE_TYPE_NEST },
	{ "core", HTMTRACE_TYPE_CORE },
	{ "llat", HTMTRACE_TYPE_LLAT },
	{ "global", HTMTRACE_TYPE_GLOBAL },
};

/**
 * parse_type() - parse an HTM type
 * @s: nest, core, llat, global (any case) or a number 0..255
 * @type: out: HTMTRACE_TYPE_* or the number
 *
 * Return: 0, -EINVAL for an unknown name, -ERANGE for a number above 255.
 */
int parse_type(const char *s, __u32 *type)
{
	unsigned int i;
	__u64 v;
	int err;

	for (i = 0; i < ARRAY_SIZE(type_names); i++) {
		if (!strcasecmp(s, type_names[i].name)) {
			*type = type_names[i].type;
			return 0;
		}
	}
	err = parse_u64(s, &v);
	if (err)
		return err;
	if (v > 0xff)
		return -ERANGE;
	*type = v;
	return 0;
}

/* Name of an HTM type, or NULL if it has none. */
const char *type_name(__u32 type)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(type_names); i++)
		if (type_names[i].type == type)
			return type_names[i].name;
	return NULL;
}

/* A node, chip or core index: 0..HTMTRACE_INDEX_MAX. */
int parse_index(const char *s, __u32 *index)
{
	__u64 v;
	int err;

	err = parse_u64(s, &v);
	if (err)
		return err;
	if (v > HTMTRACE_INDEX_MAX)
		return -ERANGE;
	*index = v;
	return 0;
}

/**
 * parse_index_list() - add a list of indices to a set
 * @s: comma-separated items, each an index as parse_index() takes it or a
 *	range FIRST-LAST (both included), e.g. "0-7" or "0,2,8-11"
 * @vals: the set, in the order given; an index already in it is skipped
 * @n: in: the indices in @vals; out: with those of @s
 * @max: room of @vals
 *
 * Return: 0; -EINVAL (not a list of indices, a range whose end is below
 * its start), -ERANGE (an index past HTMTRACE_INDEX_MAX) or -E2BIG (more
 * than @max indices); @vals and @n are then unspecified.
 */
int parse_index_list(const char *s, __u32 *vals, size_t *n, size_t max)
{
	char item[64], *dash;
	const char *end;
	__u32 first, last, v;
	size_t i, len;
	int err;

	do {
		end = strchrnul(s, ',');
		len = end - s;
		if (!len || len >= sizeof(item))
			return -EINVAL;
		memcpy(item, s, len);
		item[len] = '\0';
		dash = strchr(item, '-');
		if (dash)
			*dash = '\0';
		err = parse_index(item, &first);
		if (!err)
			err = dash ? parse_index(dash + 1, &last) : 0;
		if (err)
			return err;
		if (!dash)
			last = first;
		if (last < first)
			return -EINVAL;
		for (v = first;; v++) {
			for (i = 0; i < *n && vals[i] != v; i++)
				;
			if (i == *n) {
				if (*n == max)
					return -E2BIG;
				vals[(*n)++] = v;
			}
			if (v == last)
				break;
		}
		s = end + 1;
	} while (*end);
	return 0;
}

/**
 * parse_size() - parse a byte count
 * @s: a number as parse_u64() takes it; a decimal number may end in
 *	K, M or G (powers of 1024)
 * @val: out: bytes
 *
 * Return: 0, -EINVAL or -ERANGE.
 */
int parse_size(const char *s, __u64 *val)
{
	char num[32];
	size_t len = strlen(s);
	unsigned int shift = 0;
	__u64 v;
	int err;

	if (len && !(s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))) {
		switch (s[len - 1]) {
		case 'k':
		case 'K':
			shift = 10;
			break;
		case 'm':
		case 'M':
			shift = 20;
			break;
		case 'g':
		case 'G':
			shift = 30;
			break;
		}
	}
	if (shift)
		len--;
	if (len >= sizeof(num))
		return -ERANGE;
	memcpy(num, s, len);
	num[len] = '\0';

	err = parse_u64(num, &v);
	if (err)
		return err;
	if (v > (UINT64_MAX >> shift))
		return -ERANGE;
	*val = v << shift;
	return 0;
}

/* Longest workload duration accepted: 30 days. */
#define MAX_SECONDS	(30.0 * 24 * 3600)

/* A duration in seconds: digits with an optional fraction, e.g. 2 or 0.5. */
int parse_seconds(const char *s, double *secs)
{
	const char *p;
	int digits = 0, dots = 0;
	double v;

	for (p = s; *p; p++) {
		if (*p >= '0' && *p <= '9')
			digits++;
		else if (*p == '.' && !dots)
			dots++;
		else
			return -EINVAL;
	}
	if (!digits)
		return -EINVAL;
	v = strtod(s, NULL);
	if (!isfinite(v) || v > MAX_SECONDS)
		return -ERANGE;
	*secs = v;
	return 0;
}

/**
 * device_path() - the device a -d argument names
 * @buf: out: the path
 * @len: size of @buf
 * @arg: a path, or a channel number N meaning /dev/htmN
 *
 * Return: 0, -EINVAL for an empty argument, -ERANGE for a channel number
 * that is too large, -ENAMETOOLONG if @buf is too small.
 */
int device_path(char *buf, size_t len, const char *arg)
{
	__u64 n;
	int ret;

	if (!*arg)
		return -EINVAL;
	if (strspn(arg, "0123456789") == strlen(arg)) {
		ret = parse_u64(arg, &n);
		if (ret)
			return ret;
		if (n > INT32_MAX)
			return -ERANGE;
		ret = snprintf(buf, len, DEVICE_PREFIX "%llu",
			       (unsigned long long)n);
	} else {
		ret = snprintf(buf, len, "%s", arg);
	}
	if (ret < 0 || (size_t)ret >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* "core node 0 chip 2 core 5", or "type 7 node ..." for unnamed types. */
int format_target(char *buf, size_t len, const struct htmtrace_target *t)
{
	const char *name = type_name(t->type);
	int ret;

	if (name)
		ret = snprintf(buf, len, "%s node %u chip %u core %u", name,
			       t->node, t->chip, t->core);
	else
		ret = snprintf(buf, len, "type %u node %u chip %u core %u",
			       t->type, t->node, t->chip, t->core);
	if (ret < 0 || (size_t)ret >= len)
		return -ENAMETOOLONG;
	return 0;
}

/**
 * trace_file_name() - the name perf gives an HTM output file
 * @buf: out: the path
 * @len: size of @buf
 * @dir: directory, or NULL or "" for none
 * @prefix: "htm.bin" (trace) or "translation" (memory configuration)
 * @t: the target
 *
 * The name is PREFIX.nN.pP.cC.tT with N node, P chip, C core and T type in
 * decimal, as perf report writes it for htmdecode.
 *
 * Return: 0, or -ENAMETOOLONG if @buf is too small.
 */
int trace_file_name(char *buf, size_t len, const char *dir,
		    const char *prefix, const struct htmtrace_target *t)
{
	const char *sep = "/";
	int ret;

	if (!dir || !*dir) {
		dir = "";
		sep = "";
	} else if (dir[strlen(dir) - 1] == '/') {
		sep = "";
	}
	ret = snprintf(buf, len, "%s%s%s.n%u.p%u.c%u.t%u", dir, sep, prefix,
		       t->node, t->chip, t->core, t->type);
	if (ret < 0 || (size_t)ret >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* Name of a HTMTRACE_STATE_*, or NULL. */
const char *state_name(__u32 state)
{
	switch (state) {
	case HTMTRACE_STATE_IDLE:
		return "idle";
	case HTMTRACE_STATE_CONFIGURED:
		return "configured";
	case HTMTRACE_STATE_TRACING:
		return "tracing";
	case HTMTRACE_STATE_STOPPED:
		return "stopped";
	}
	return NULL;
}

/* "nowrap", "nowrap,wait", "none"; unknown bits in hex. */
int format_flags(char *buf, size_t len, __u32 flags)
{
	__u32 known = flags & HTMTRACE_CFG_FLAGS;
	__u32 unknown = flags & ~HTMTRACE_CFG_FLAGS;
	const char *nowrap = flags & HTMTRACE_CFG_NOWRAP ? "nowrap" : "";
	const char *wait = flags & HTMTRACE_CFG_WAIT ? "wait" : "";
	const char *sep = *nowrap && *wait ? "," : "";
	int ret;

	if (!flags)
		ret = snprintf(buf, len, "none");
	else if (unknown)
		ret = snprintf(buf, len, "%s%s%s%s0x%x", nowrap, sep, wait,
			       known ? "," : "", unknown);
	else
		ret = snprintf(buf, len, "%s%s%s", nowrap, sep, wait);
	if (ret < 0 || (size_t)ret >= len)
		return -ENAMETOOLONG;
	return 0;
}

static const struct {
	const char *prefix;
	int to_sim;
} param_prefixes[] = {
	{ "htmtrace_hvsim.", 1 },
	{ "hvsim.", 1 },
	{ "htmtrace.", 0 },
};

/**
 * split_module_param() - route a load parameter to its module
 * @arg: NAME=VALUE for htmtrace.ko, htmtrace.NAME=VALUE for the same, or
 *	hvsim.NAME=VALUE (or htmtrace_hvsim.NAME=VALUE) for the simulator
 * @name: out: where NAME=VALUE starts in @arg
 * @to_sim: out: 1 if the parameter is the simulator's
 *
 * NAME is letters, digits and '_'; VALUE must not hold '"' or a newline.
 *
 * Return: 0, or -EINVAL for a malformed parameter.
 */
int split_module_param(const char *arg, const char **name, int *to_sim)
{
	const char *p;
	unsigned int i;

	*to_sim = 0;
	*name = arg;
	for (i = 0; i < ARRAY_SIZE(param_prefixes); i++) {
		size_t len = strlen(param_prefixes[i].prefix);

		if (!strncmp(arg, param_prefixes[i].prefix, len)) {
			*to_sim = param_prefixes[i].to_sim;
			*name = arg + len;
			break;
		}
	}
	for (p = *name; *p && *p != '='; p++) {
		if (!(*p == '_' || (*p >= '0' && *p <= '9') ||
		      (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
			return -EINVAL;
	}
	if (p == *name || *p != '=')
		return -EINVAL;
	if (strpbrk(p, "\"\n"))
		return -EINVAL;
	return 0;
}
