// SPDX-License-Identifier: GPL-2.0
/*
 * fakehtm.so: a fake /dev/htmN for the host tests of htmtrace's device
 * paths (tests/bats/host-record.bats), loaded with LD_PRELOAD. A test
 * fixture: it models the ABI of uapi/linux/htmtrace.h closely enough to
 * drive every path of the tool, not the driver's real behaviour.
 *
 * Opening $FAKE_HTM_DEV gives an fd (of /dev/null) whose ioctl() and read()
 * follow the ABI; the channel state lives in $FAKE_HTM_STATE so that it
 * survives from one htmtrace run to the next, every operation is appended
 * to $FAKE_HTM_LOG, and the trace holds the simulator's records
 * (hvsim_record.h), so that htmcheck verify can check what was read.
 *
 *   FAKE_HTM_LOG2      buffer size, log2 (default 12)
 *   FAKE_HTM_WRITTEN   records written while tracing (default 40)
 *   FAKE_HTM_CHUNK     largest read() answer (default 1000)
 *   FAKE_HTM_READ_US   microseconds each read() of data takes (default 0)
 *   FAKE_HTM_EINTR     the first read() fails with EINTR
 *   FAKE_HTM_SELFSTOP  tracing stops by itself (no-wrap, buffer full)
 *   FAKE_HTM_BLOCKS    memory configuration blocks (default 1)
 *   FAKE_HTM_ENTRIES   entries per block (default 3)
 *   FAKE_HTM_FAIL      op:errno[:offset]: fail op (configure, start, stop,
 *                      deconfigure, status, sysmem, sysproc, caps, setup,
 *                      read at or past offset) with errno
 *   FAKE_HTM_DATA_END  the hypervisor says the data ends at this offset,
 *                      before the buffer size: read() returns 0 there, and
 *                      STATUS says so (HTMTRACE_STATUS_DATA_END, data_size)
 *   FAKE_HTM_STATUS_ERR  the hypervisor's STATUS fails with this errno: the
 *                      ioctl answers buffer_size 0 (unknown), status_error
 *   FAKE_HTM_STOP_REFUSED  STOP fails with EIO, the state stays tracing with
 *                      HTMTRACE_STATUS_STOP_REFUSED; then read() sends the
 *                      STOP again, as the driver does: "stopped" (the
 *                      default) it succeeds and the trace is read, "dead"
 *                      it is refused again and read() fails with EIO
 *
 * lseek() sets the position (SEEK_SET, SEEK_CUR; SEEK_END is the buffer
 * size) and is logged as SEEK.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/types.h>
#include <unistd.h>
#include <linux/htmtrace.h>
#include "hvsim_record.h"
#include "fakecommon.h"

struct chan {
	unsigned int state, flags;
	struct htmtrace_target t;
	unsigned int refused;	/* the last STOP was refused */
};

static off_t fake_pos;
static int eintr_done;

const char fake_dev_var[] = "FAKE_HTM_DEV";
const char fake_log_var[] = "FAKE_HTM_LOG";
const char fake_fail_var[] = "FAKE_HTM_FAIL";

static void load(struct chan *c)
{
	const char *path = getenv("FAKE_HTM_STATE");
	FILE *f;

	memset(c, 0, sizeof(*c));
	f = path ? fopen(path, "r") : NULL;
	if (!f)
		return;
	if (fscanf(f, "%u %u %u %u %u %u", &c->state, &c->flags, &c->t.type,
		   &c->t.node, &c->t.chip, &c->t.core) != 6)
		memset(c, 0, sizeof(*c));
	else if (fscanf(f, " refused %u", &c->refused) != 1)
		c->refused = 0;
	fclose(f);
}

static void save(const struct chan *c)
{
	const char *path = getenv("FAKE_HTM_STATE");
	FILE *f = path ? fopen(path, "w") : NULL;

	if (!f)
		return;
	fprintf(f, "%u %u %u %u %u %u", c->state, c->flags, c->t.type,
		c->t.node, c->t.chip, c->t.core);
	if (c->refused)
		fprintf(f, " refused %u", c->refused);
	fputc('\n', f);
	fclose(f);
}

/* Should @op fail? Returns the errno, or 0. */
static int injected(const char *op, unsigned long long pos)
{
	char *end;
	int err = injected_err(op, &end);

	if (err && *end == ':' && pos < strtoull(end + 1, NULL, 0))
		return 0;
	return err;
}

void fake_opened(int flags)
{
	(void)flags;
	fake_pos = 0;
	log_op("OPEN");
}

void fake_closed(void)
{
}

static size_t blocks_len(size_t entry_size)
{
	return env_num("FAKE_HTM_BLOCKS", 1) *
	       (32 + env_num("FAKE_HTM_ENTRIES", 3) * entry_size);
}

static void put_be64(unsigned char *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = v >> (56 - 8 * i);
}

/* Store the leading whole blocks that fit. */
static int fill_blocks(struct htmtrace_hvbuf *hb, size_t entry_size,
		       const char *name)
{
	unsigned long nblocks = env_num("FAKE_HTM_BLOCKS", 1);
	unsigned long nent = env_num("FAKE_HTM_ENTRIES", 3);
	size_t bsize = 32 + nent * entry_size, total = blocks_len(entry_size);
	unsigned char *out = (unsigned char *)(uintptr_t)hb->addr;
	unsigned long i;

	for (i = 0; i < nblocks && (i + 1) * bsize <= hb->size; i++) {
		unsigned char *b = out + i * bsize;

		memset(b, 0, 32);
		put_be64(b + 8, i + 1 < nblocks ? (i + 1) * nent : 0);
		put_be64(b + 16, nent);
		memset(b + 32, 0xa0 + (int)i, nent * entry_size);
	}
	hb->length = total;
	if (hb->size < total) {
		log_op("%s size=%u ENOSPC length=%zu", name, hb->size, total);
		errno = ENOSPC;
		return -1;
	}
	log_op("%s size=%u length=%zu", name, hb->size, total);
	return 0;
}

int fake_ioctl(unsigned long req, void *arg)
{
	struct htmtrace_config *cfg;
	struct htmtrace_status *st;
	struct htmtrace_hvbuf *hb;
	struct htmtrace_setup *su;
	struct chan c;
	unsigned int i;
	int err;

	load(&c);
	switch (req) {
	case HTMTRACE_IOC_CONFIGURE:
		cfg = arg;
		err = injected("configure", 0);
		if (err)
			return fail("CONFIGURE", err);
		if (c.state != HTMTRACE_STATE_IDLE)
			return fail("CONFIGURE", EBADFD);
		c.state = HTMTRACE_STATE_CONFIGURED;
		c.flags = cfg->flags;
		c.t = cfg->target;
		if (c.flags & HTMTRACE_CFG_MODE)
			log_op("CONFIGURE type=%u node=%u chip=%u core=%u flags=0x%x mode=0x%llx:0x%llx",
			       c.t.type, c.t.node, c.t.chip, c.t.core, c.flags,
			       (unsigned long long)cfg->mode_mask,
			       (unsigned long long)cfg->mode_value);
		else
			log_op("CONFIGURE type=%u node=%u chip=%u core=%u flags=0x%x",
			       c.t.type, c.t.node, c.t.chip, c.t.core, c.flags);
		break;
	case HTMTRACE_IOC_START:
		err = injected("start", 0);
		if (err)
			return fail("START", err);
		if (c.state != HTMTRACE_STATE_CONFIGURED &&
		    c.state != HTMTRACE_STATE_STOPPED)
			return fail("START", EBADFD);
		c.state = HTMTRACE_STATE_TRACING;
		log_op("START");
		break;
	case HTMTRACE_IOC_STOP:
		err = injected("stop", 0);
		if (err)
			return fail("STOP", err);
		if (c.state != HTMTRACE_STATE_TRACING)
			return fail("STOP", EBADFD);
		if (getenv("FAKE_HTM_STOP_REFUSED")) {
			c.refused = 1;
			save(&c);
			return fail("STOP refused", EIO);
		}
		c.state = HTMTRACE_STATE_STOPPED;
		log_op("STOP");
		break;
	case HTMTRACE_IOC_DECONFIGURE:
		err = injected("deconfigure", 0);
		if (err)
			return fail("DECONFIGURE", err);
		if (c.state == HTMTRACE_STATE_IDLE)
			return fail("DECONFIGURE", EBADFD);
		memset(&c, 0, sizeof(c));
		log_op("DECONFIGURE");
		break;
	case HTMTRACE_IOC_STATUS:
		st = arg;
		err = injected("status", 0);
		if (err)
			return fail("STATUS", err);
		if (c.state == HTMTRACE_STATE_TRACING &&
		    env_num("FAKE_HTM_SELFSTOP", 0))
			c.state = HTMTRACE_STATE_STOPPED;
		memset(st, 0, sizeof(*st));
		st->state = c.state;
		if (c.state != HTMTRACE_STATE_IDLE) {
			st->flags = c.flags;
			st->target = c.t;
			st->buffer_size = 1ULL << env_num("FAKE_HTM_LOG2", 12);
			if (env_num("FAKE_HTM_STATUS_ERR", 0)) {
				st->buffer_size = 0;
				st->status_error = -(int)env_num("FAKE_HTM_STATUS_ERR", 0);
			}
			if (getenv("FAKE_HTM_DATA_END") &&
			    c.state == HTMTRACE_STATE_STOPPED) {
				st->hv_flags |= HTMTRACE_STATUS_DATA_END;
				st->data_size = env_num("FAKE_HTM_DATA_END", 0);
			}
			if (c.refused)
				st->hv_flags |= HTMTRACE_STATUS_STOP_REFUSED;
		}
		log_op("STATUS state=%u", c.state);
		break;
	case HTMTRACE_IOC_SYSMEM:
		err = injected("sysmem", 0);
		if (err)
			return fail("SYSMEM", err);
		return fill_blocks(arg, 32, "SYSMEM");
	case HTMTRACE_IOC_SYSPROC:
		err = injected("sysproc", 0);
		if (err)
			return fail("SYSPROC", err);
		return fill_blocks(arg, 16, "SYSPROC");
	case HTMTRACE_IOC_CAPS:
		hb = arg;
		err = injected("caps", 0);
		if (err)
			return fail("CAPS", err);
		if (hb->size < HTMTRACE_CAPS_SIZE)
			return fail("CAPS", ENOSPC);
		for (i = 0; i < HTMTRACE_CAPS_SIZE; i++)
			((unsigned char *)(uintptr_t)hb->addr)[i] = i;
		hb->length = HTMTRACE_CAPS_SIZE;
		log_op("CAPS");
		return 0;
	case HTMTRACE_IOC_SETUP:
		su = arg;
		err = injected("setup", 0);
		if (err)
			return fail("SETUP", err);
		log_op("SETUP type=%u node=%u chip=%u core=%u log2=%u",
		       su->target.type, su->target.node, su->target.chip,
		       su->target.core, su->log2_size);
		return 0;
	default:
		return fail("UNKNOWN", ENOTTY);
	}
	save(&c);
	return 0;
}

ssize_t fake_read(void *buf, size_t count)
{
	unsigned long log2 = env_num("FAKE_HTM_LOG2", 12);
	uint64_t size = 1ULL << log2, nslots = size / HVSIM_RECORD_SIZE;
	uint64_t written = env_num("FAKE_HTM_WRITTEN", 40);
	size_t chunk = env_num("FAKE_HTM_CHUNK", 1000), n, i;
	unsigned char rec[HVSIM_RECORD_SIZE];
	uint64_t word, slot = UINT64_MAX;
	const char *v;
	__u64 seq;
	struct chan c;
	int err;

	if (getenv("FAKE_HTM_EINTR") && !eintr_done) {
		eintr_done = 1;
		log_op("READ EINTR");
		errno = EINTR;
		return -1;
	}
	load(&c);
	if (c.state == HTMTRACE_STATE_IDLE ||
	    c.state == HTMTRACE_STATE_CONFIGURED)
		return fail("READ", ENODATA);
	if (c.state == HTMTRACE_STATE_TRACING && c.refused) {
		v = getenv("FAKE_HTM_STOP_REFUSED");
		if (v && !strcmp(v, "dead"))
			return fail("READ", EIO);
		c.state = HTMTRACE_STATE_STOPPED;
		c.refused = 0;
		save(&c);
		log_op("READ found it stopped");
	} else if (c.state == HTMTRACE_STATE_TRACING) {
		c.state = HTMTRACE_STATE_STOPPED;
		save(&c);
		log_op("STOP by read");
	}
	err = injected("read", fake_pos);
	if (err)
		return fail("READ", err);
	if (getenv("FAKE_HTM_DATA_END") &&
	    env_num("FAKE_HTM_DATA_END", 0) < size)
		size = env_num("FAKE_HTM_DATA_END", 0);
	if ((uint64_t)fake_pos >= size) {
		log_op("READ EOF at %llu", (unsigned long long)fake_pos);
		return 0;
	}
	n = count < chunk ? count : chunk;
	if (n > size - fake_pos)
		n = size - fake_pos;
	word = hvsim_target_word(c.t.type, c.t.node, c.t.chip, c.t.core);
	for (i = 0; i < n; i++) {
		uint64_t s = (fake_pos + i) / HVSIM_RECORD_SIZE;

		if (s != slot) {
			slot = s;
			if (hvsim_slot_seq(slot, nslots, written, &seq))
				hvsim_record_fill(rec, word, seq);
			else
				memset(rec, 0, sizeof(rec));
		}
		((unsigned char *)buf)[i] = rec[(fake_pos + i) % HVSIM_RECORD_SIZE];
	}
	fake_pos += n;
	if (env_num("FAKE_HTM_READ_US", 0))
		usleep(env_num("FAKE_HTM_READ_US", 0));
	return n;
}

off_t fake_lseek(off_t off, int whence)
{
	off_t base = whence == SEEK_CUR ? fake_pos : 0;

	if (whence == SEEK_END) {
		base = 1LL << env_num("FAKE_HTM_LOG2", 12);
	} else if (whence != SEEK_SET && whence != SEEK_CUR) {
		errno = EINVAL;
		return -1;
	}
	if (base + off < 0) {
		errno = EINVAL;
		return -1;
	}
	fake_pos = base + off;
	log_op("SEEK %lld", (long long)fake_pos);
	return fake_pos;
}
