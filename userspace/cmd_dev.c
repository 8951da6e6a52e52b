// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace: the commands that talk to a /dev/htmN channel, except record.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <stdbool.h>
#include <unistd.h>

#include "chan.h"
#include "commands.h"
#include "hvblock.h"
#include "opts.h"
#include "progress.h"
#include "util.h"
#include "workload.h"

/* First guess for the configuration dumps; grown on -ENOSPC. */
#define HVBUF_SIZE	65536
#define HVBUF_TRIES	8

/*
 * A device of ours is missing: say why, from what is there. The module
 * makes no /dev/htmN when the hypervisor offers no H_HTM, and no
 * /dev/vpa_dtl outside a shared-processor partition; it says so in the
 * kernel log.
 */
static void explain_missing(const char *path)
{
	bool htm = !strncmp(path, DEVICE_PREFIX, strlen(DEVICE_PREFIX));

	if (!htm && strcmp(path, DTL_DEVICE))
		return;
	if (access("/sys/module/htmtrace", F_OK))
		pr_err("is the htmtrace module loaded? (htmtrace load)");
	else if (!htm)
		pr_err("htmtrace is loaded but made no %s: the partition offers no dispatch trace log (see the kernel log)",
		       DTL_DEVICE);
	else if (!access(DEVICE_PREFIX "0", F_OK))
		pr_err("htmtrace has no such channel: see its channels parameter (/sys/module/htmtrace/parameters/channels)");
	else
		pr_err("htmtrace is loaded but made no %sN: the hypervisor offers no H_HTM to this partition (see the kernel log)",
		       DEVICE_PREFIX);
}

/* Open a channel; reports the error. Returns the fd or -errno. */
int open_device(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC);
	int err;

	if (fd >= 0)
		return fd;
	err = errno;
	pr_errno(err, "open %s", path);
	if (err == ENOENT)
		explain_missing(path);
	return -err;
}

/* Report a failed ioctl with a hint for the errors the ABI documents. */
void chan_ioctl_err(int err, const char *what, const char *dev)
{
	pr_errno(err, "%s %s", what, dev);
	switch (err) {
	case EPERM:
		if (!strcmp(what, "setup"))
			pr_err("this needs CAP_SYS_ADMIN");
		else
			pr_err("this needs CAP_PERFMON or CAP_SYS_ADMIN");
		break;
	case EBUSY:
		pr_err("the target is held by another channel or perf event, or the hypervisor stayed busy");
		break;
	case EBADFD:
		pr_err("the channel is not in a state where this applies (htmtrace status)");
		break;
	case ENOTTY:
		pr_err("%s is not an htmtrace channel", dev);
		break;
	}
}

/**
 * chan_ioctl() - one ioctl on an open channel
 * @fd: the channel
 * @dev: its name, for messages
 * @cmd: the ioctl
 * @arg: its argument (NULL for those that take none)
 * @what: the operation, for messages: "configure", "status", ...
 *
 * Return: 0, or -1 after reporting the error.
 */
int chan_ioctl(int fd, const char *dev, unsigned long cmd, void *arg,
	       const char *what)
{
	if (!ioctl(fd, cmd, arg))
		return 0;
	chan_ioctl_err(errno, what, dev);
	return -1;
}

/* Open @dev, make one ioctl, close. Returns EXIT_OK, or EXIT_FAIL (reported). */
static int dev_ioctl(const char *dev, int flags, unsigned long cmd, void *arg,
		     const char *what)
{
	int fd = open_device(dev, flags);
	int ret;

	if (fd < 0)
		return EXIT_FAIL;
	ret = chan_ioctl(fd, dev, cmd, arg, what) ? EXIT_FAIL : EXIT_OK;
	close(fd);
	return ret;
}

/* fetch_hvbuf() without the messages. Returns 0 or -errno. */
static int hvbuf_ioctl(int fd, unsigned long cmd,
		       const struct htmtrace_target *t, unsigned char **bufp,
		       size_t *lenp)
{
	struct htmtrace_hvbuf hb;
	unsigned char *buf = NULL, *nbuf;
	size_t size = HVBUF_SIZE;
	int tries, err = -ENOSPC;

	for (tries = 0; tries < HVBUF_TRIES; tries++) {
		nbuf = realloc(buf, size);
		if (!nbuf) {
			err = -ENOMEM;
			break;
		}
		buf = nbuf;
		memset(&hb, 0, sizeof(hb));
		hb.target = *t;
		hb.addr = (uintptr_t)buf;
		hb.size = size;
		if (!ioctl(fd, cmd, &hb)) {
			if (hb.length > size) {
				err = -EPROTO;
				break;
			}
			*bufp = buf;
			*lenp = hb.length;
			return 0;
		}
		err = -errno;
		if (err != -ENOSPC)
			break;
		/* The driver must ask for more than it had. */
		if (hb.length <= size) {
			err = -EPROTO;
			break;
		}
		size = hb.length;
	}
	free(buf);
	return err;
}

/**
 * fetch_hvbuf() - run an iterated configuration dump
 * @fd: the channel
 * @dev: its name, for messages
 * @cmd: HTMTRACE_IOC_SYSMEM or HTMTRACE_IOC_SYSPROC
 * @what: the dump, for messages: "memory configuration", ...
 * @t: the target the query is about
 * @bufp: out: malloc()ed blocks; the caller frees
 * @lenp: out: bytes in *@bufp
 *
 * Starts with a 64 KiB buffer and grows it to the length the driver asks
 * for when it answers -ENOSPC.
 *
 * Return: 0, or -errno after reporting the error.
 */
int fetch_hvbuf(int fd, const char *dev, unsigned long cmd, const char *what,
		const struct htmtrace_target *t, unsigned char **bufp,
		size_t *lenp)
{
	int err = hvbuf_ioctl(fd, cmd, t, bufp, lenp);

	if (err == -EPROTO)
		pr_err("%s %s: the driver answered an impossible length",
		       what, dev);
	else if (err)
		chan_ioctl_err(-err, what, dev);
	return err;
}

/**
 * fetch_sysmem() - the memory configuration, for the translation files
 * @fd: a channel
 * @dev: its name, for messages
 * @bufp: out: malloc()ed blocks, back to back as the driver stored them;
 *	the caller frees
 * @lenp: out: bytes in *@bufp
 * @nr_blocks: out: blocks in *@bufp
 * @nr_entries: out: entries they count
 *
 * Asked of target 0 (type, node, chip and core all zero), as the HTM PMU
 * proposal asks for the records perf writes to translation.* files: the
 * memory configuration is the partition's, not a unit's. The blocks are
 * checked to fill the answer exactly.
 *
 * Return: 0, or -1 after reporting the error.
 */
int fetch_sysmem(int fd, const char *dev, unsigned char **bufp, size_t *lenp,
		 __u64 *nr_blocks, __u64 *nr_entries)
{
	struct htmtrace_target zero = { 0 };
	size_t bad;

	if (fetch_hvbuf(fd, dev, HTMTRACE_IOC_SYSMEM, "memory configuration",
			&zero, bufp, lenp))
		return -1;
	if (count_blocks(*bufp, *lenp, HTMTRACE_SYSMEM_ENTRY_SIZE, nr_blocks,
			 nr_entries, &bad)) {
		pr_err("memory configuration %s: malformed block at offset %zu of %zu bytes",
		       dev, bad, *lenp);
		free(*bufp);
		*bufp = NULL;
		return -1;
	}
	return 0;
}

/* The line that says a translation file was written. */
void print_sysmem_written(FILE *f, size_t len, __u64 nr_blocks,
			  __u64 nr_entries, const char *name)
{
	fprintf(f, "wrote %zu bytes of memory configuration (%llu %s, %llu %s) to %s\n",
		len, (unsigned long long)nr_blocks,
		plural(nr_blocks, "block", "blocks"),
		(unsigned long long)nr_entries,
		plural(nr_entries, "entry", "entries"), name);
}

/**
 * copy_trace() - read a channel from its current position to the end
 * @fd: the channel
 * @dev: its name, for messages
 * @out: where the trace goes
 * @outname: its name, for messages
 * @bs: read() size
 * @prog: the progress line, with its known size (0: unknown)
 * @tc: in: @tc->start, the channel's position; out: what was copied
 *
 * read() may return less than asked; the end is a read() of 0, wherever
 * the hypervisor says the data ends (before the buffer size for a no-wrap
 * trace stopped early). @tc->done counts every byte write() took, a
 * partial write too, so that the output holds exactly @tc->start +
 * @tc->done bytes of the trace when a write fails. A SIGINT, SIGTERM or
 * SIGHUP (whose handlers count them in @interrupted, without SA_RESTART)
 * stops the copy after the read() under way, and the next one ends the
 * tool (release_signals()).
 *
 * Return: 0 at the end of the trace, or -1 after reporting what stopped
 * the copy (@tc->err, @tc->write_err, @tc->stopped).
 */
int copy_trace(int fd, const char *dev, int out, const char *outname,
	       size_t bs, struct progress *prog, struct trace_copy *tc)
{
	sig_atomic_t seen = interrupted;
	unsigned char *buf;
	size_t off;
	ssize_t n;

	tc->done = 0;
	tc->err = 0;
	tc->write_err = 0;
	tc->stopped = 0;
	buf = malloc(bs);
	if (!buf) {
		pr_errno(ENOMEM, "read buffer of %zu bytes", bs);
		tc->err = -ENOMEM;
		return -1;
	}
	for (;;) {
		if (interrupted != seen)
			goto stopped;
		n = read(fd, buf, bs);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			tc->err = -errno;
			progress_end(prog, 0);
			pr_errno(-tc->err, "read %s at offset %llu", dev,
				 (unsigned long long)(tc->start + tc->done));
			goto out;
		}
		if (!n)
			break;
		for (off = 0; off < (size_t)n; ) {
			ssize_t w = write(out, buf + off, n - off);

			if (w < 0) {
				if (errno != EINTR) {
					tc->err = -errno;
					tc->write_err = 1;
					progress_end(prog, 0);
					pr_errno(-tc->err, "write %s", outname);
					goto out;
				}
				if (interrupted != seen)
					goto stopped;
				continue;
			}
			off += w;
			tc->done += w;
		}
		progress_update(prog, tc->start + tc->done);
	}
	progress_end(prog, 1);
	free(buf);
	return 0;

stopped:
	release_signals();
	tc->stopped = 1;
	tc->err = -EINTR;
	progress_end(prog, 0);
	pr_err("interrupted: the dump stopped at offset %llu",
	       (unsigned long long)(tc->start + tc->done));
out:
	free(buf);
	return -1;
}

/* STATUS without a message: all zeros (size unknown) if it fails. */
void query_status(int fd, struct htmtrace_status *st)
{
	memset(st, 0, sizeof(*st));
	if (ioctl(fd, HTMTRACE_IOC_STATUS, st))
		memset(st, 0, sizeof(*st));
}

/* "4096 bytes of a buffer of 4096", "... of a buffer of unknown size". */
int format_of_buffer(char *buf, size_t len, __u64 bytes,
		     const struct htmtrace_status *st)
{
	if (!st->buffer_size)
		return snprintf(buf, len,
				"%llu bytes of a buffer of unknown size",
				(unsigned long long)bytes);
	return snprintf(buf, len, "%llu bytes of a buffer of %llu",
			(unsigned long long)bytes,
			(unsigned long long)st->buffer_size);
}

/*
 * ": the trace ended before the buffer filled" if the hypervisor said the
 * data of a whole dump of @bytes ends there, before the buffer's end (a
 * no-wrap trace stopped early: normal, not an error); else "".
 */
const char *ended_early(__u64 bytes, const struct htmtrace_status *st)
{
	if ((st->hv_flags & HTMTRACE_STATUS_DATA_END) &&
	    st->data_size == bytes &&
	    (!st->buffer_size || bytes < st->buffer_size))
		return ": the trace ended before the buffer filled";
	return "";
}

/*
 * The command that resumes a dump of @dev at @offset into @file (NULL: the
 * standard output, then appended to with >>), on a line of its own.
 */
void print_dump_command(const char *dev, const char *file, __u64 offset)
{
	char d[PATH_MAX + 8], f[4 * PATH_MAX + 8], o[48] = "";

	if (device_word(d, sizeof(d), dev))
		snprintf(d, sizeof(d), "DEV");
	if (offset)
		snprintf(o, sizeof(o), " --offset %llu",
			 (unsigned long long)offset);
	if (!file)
		fprintf(stderr, "  htmtrace dump -d %s%s >> FILE\n", d, o);
	else if (shell_word(f, sizeof(f), file))
		fprintf(stderr, "  htmtrace dump -d %s%s -o FILE\n", d, o);
	else
		fprintf(stderr, "  htmtrace dump -d %s%s -o %s\n", d, o, f);
}

/* --bs SIZE. Returns EXIT_OK or, after a message, EXIT_USAGE. */
int parse_bs(const char *arg, size_t *bs)
{
	__u64 v;

	if (parse_size(arg, &v) || !v || v > MAX_BS)
		return usage_err("bad read size '%s': expected 1 byte to 1G",
				 arg);
	*bs = v;
	return EXIT_OK;
}

/*
 * --mode MASK:VALUE: sets HTMTRACE_CFG_MODE in @flags. Returns EXIT_OK or,
 * after a message, EXIT_USAGE.
 */
int parse_mode_opt(const char *arg, __u64 *mask, __u64 *value, __u32 *flags)
{
	if (parse_mode(arg, mask, value))
		return usage_err("bad mode '%s': expected MASK:VALUE, e.g. 0xff:0x1",
				 arg);
	*flags |= HTMTRACE_CFG_MODE;
	return EXIT_OK;
}

static const struct option device_options[] = {
	DEVICE_OPTION,
	HELP_OPTION,
	OPTIONS_END,
};

/* start, stop, deconfigure: one ioctl without argument. */
static int simple_ioctl(int argc, char **argv, unsigned long cmd,
			const char *what)
{
	struct cmd_opts co = { 0 };

	if (next_option(argc, argv, ":d:h", device_options, &co))
		return co.status;
	return dev_ioctl(co.dev, O_RDWR, cmd, NULL, what);
}

int cmd_start(int argc, char **argv)
{
	return simple_ioctl(argc, argv, HTMTRACE_IOC_START, "start");
}

int cmd_stop(int argc, char **argv)
{
	struct htmtrace_status st;
	struct cmd_opts co = { 0 };
	int fd, err;

	if (next_option(argc, argv, ":d:h", device_options, &co))
		return co.status;
	fd = open_device(co.dev, O_RDWR);
	if (fd < 0)
		return EXIT_FAIL;
	if (!ioctl(fd, HTMTRACE_IOC_STOP)) {
		close(fd);
		return EXIT_OK;
	}
	err = errno;
	query_status(fd, &st);
	close(fd);
	chan_ioctl_err(err, "stop", co.dev);
	if (st.hv_flags & HTMTRACE_STATUS_STOP_REFUSED)
		pr_err("the hypervisor refused the stop: no data is read while the trace may run; 'htmtrace dump' asks for the stop again");
	return EXIT_FAIL;
}

int cmd_deconfigure(int argc, char **argv)
{
	return simple_ioctl(argc, argv, HTMTRACE_IOC_DECONFIGURE,
			    "deconfigure");
}

/* The status as one JSON object: null for what an idle channel lacks. */
static void status_json(const char *dev, const struct htmtrace_status *st)
{
	const char *state = state_name(st->state);
	int idle = st->state == HTMTRACE_STATE_IDLE;

	fputs("{\n  \"device\": ", stdout);
	json_string(stdout, dev);
	fputs(",\n  \"state\": ", stdout);
	if (state)
		json_string(stdout, state);
	else
		fputs("null", stdout);
	printf(",\n  \"state_code\": %u,\n  \"target\": ", st->state);
	if (idle)
		fputs("null", stdout);
	else
		json_target(stdout, &st->target);
	printf(",\n  \"flags\": [%s%s%s],\n  \"flags_code\": %u,\n",
	       st->flags & HTMTRACE_CFG_NOWRAP ? "\"nowrap\"" : "",
	       (st->flags & HTMTRACE_CFG_NOWRAP) &&
	       (st->flags & HTMTRACE_CFG_WAIT) ? ", " : "",
	       st->flags & HTMTRACE_CFG_WAIT ? "\"wait\"" : "", st->flags);
	/* null: idle, or the hypervisor gave no usable size (unknown). */
	if (idle || !st->buffer_size)
		fputs("  \"buffer_size\": null,\n", stdout);
	else
		printf("  \"buffer_size\": %llu,\n",
		       (unsigned long long)st->buffer_size);
	if (st->hv_flags & HTMTRACE_STATUS_DATA_END)
		printf("  \"data_size\": %llu,\n",
		       (unsigned long long)st->data_size);
	else
		fputs("  \"data_size\": null,\n", stdout);
	printf("  \"status_error\": %d,\n  \"stop_refused\": %s,\n  \"hv_flags_code\": %u\n}\n",
	       st->status_error > 0 ? st->status_error : -st->status_error,
	       st->hv_flags & HTMTRACE_STATUS_STOP_REFUSED ? "true" : "false",
	       st->hv_flags);
}

static const struct option status_options[] = {
	DEVICE_OPTION,
	{ "json", no_argument, NULL, OPT_JSON },
	HELP_OPTION,
	OPTIONS_END,
};

int cmd_status(int argc, char **argv)
{
	struct htmtrace_status st;
	struct cmd_opts co = { 0 };
	char text[128];
	const char *state;
	int opt, json = 0;

	while ((opt = next_option(argc, argv, ":d:h", status_options,
				  &co)) > 0) {
		switch (opt) {
		case OPT_JSON:
			json = 1;
			break;
		}
	}
	if (opt)
		return co.status;
	memset(&st, 0, sizeof(st));
	if (dev_ioctl(co.dev, O_RDONLY, HTMTRACE_IOC_STATUS, &st, "status"))
		return EXIT_FAIL;
	if (json) {
		status_json(co.dev, &st);
		return EXIT_OK;
	}

	printf("device:      %s\n", co.dev);
	state = state_name(st.state);
	if (state)
		printf("state:       %s\n", state);
	else
		printf("state:       unknown (%u)\n", st.state);
	if (st.state == HTMTRACE_STATE_IDLE)
		return EXIT_OK;
	format_target(text, sizeof(text), &st.target);
	printf("target:      %s\n", text);
	format_flags(text, sizeof(text), st.flags);
	printf("flags:       %s\n", text);
	if (!st.buffer_size && st.status_error)
		printf("buffer size: unknown (the hypervisor's STATUS failed: %s)\n",
		       strerror(st.status_error > 0 ? st.status_error :
				-st.status_error));
	else if (!st.buffer_size)
		printf("buffer size: unknown (the hypervisor gives none for this target)\n");
	else if (!(st.buffer_size & (st.buffer_size - 1)))
		printf("buffer size: %llu bytes (2^%d)\n",
		       (unsigned long long)st.buffer_size,
		       __builtin_ctzll(st.buffer_size));
	else
		printf("buffer size: %llu bytes\n",
		       (unsigned long long)st.buffer_size);
	if (st.hv_flags & HTMTRACE_STATUS_DATA_END)
		printf("data size:   %llu bytes (where the hypervisor said the trace ends)\n",
		       (unsigned long long)st.data_size);
	if (st.hv_flags & HTMTRACE_STATUS_STOP_REFUSED)
		printf("stop:        refused by the hypervisor (not in a state to stop): the trace may still run; a read asks for the stop again, and reads only once it succeeds\n");
	return EXIT_OK;
}

static const struct option setup_options[] = {
	TARGET_OPTIONS,
	DEVICE_OPTION,
	{ "log2", required_argument, NULL, 's' },
	HELP_OPTION,
	OPTIONS_END,
};

int cmd_setup(int argc, char **argv)
{
	struct htmtrace_setup setup;
	struct cmd_opts co = { 0 };
	char text[128];
	__u64 log2 = 0;
	int opt;

	while ((opt = next_option(argc, argv, ":t:n:p:c:d:s:h", setup_options,
				  &co)) > 0) {
		switch (opt) {
		case 's':
			if (parse_u64(optarg, &log2) || log2 < 1 || log2 > 62)
				return usage_err("bad buffer size '%s': expected a power of two 1..62",
						 optarg);
			break;
		}
	}
	if (opt)
		return co.status;
	if (target_require(&co.ta, TARGET_ALL))
		return EXIT_USAGE;
	if (!log2)
		return usage_err("missing buffer size: -s LOG2 is required");

	memset(&setup, 0, sizeof(setup));
	setup.target = co.ta.t;
	setup.log2_size = log2;
	if (dev_ioctl(co.dev, O_RDWR, HTMTRACE_IOC_SETUP, &setup, "setup"))
		return EXIT_FAIL;
	format_target(text, sizeof(text), &co.ta.t);
	printf("HTM buffer of %s set to 2^%llu bytes; on PowerVM it may take effect only after a CEC reboot\n",
	       text, (unsigned long long)log2);
	return EXIT_OK;
}

static const struct option caps_options[] = {
	TARGET_OPTIONS,
	DEVICE_OPTION,
	{ "json", no_argument, NULL, OPT_JSON },
	HELP_OPTION,
	OPTIONS_END,
};

int cmd_caps(int argc, char **argv)
{
	unsigned char caps[HTMTRACE_CAPS_SIZE];
	struct htmtrace_hvbuf hb;
	struct cmd_opts co = { 0 };
	int opt, json = 0;

	while ((opt = next_option(argc, argv, ":t:n:p:c:d:h", caps_options,
				  &co)) > 0) {
		switch (opt) {
		case OPT_JSON:
			json = 1;
			break;
		}
	}
	if (opt)
		return co.status;

	memset(caps, 0, sizeof(caps));
	memset(&hb, 0, sizeof(hb));
	hb.target = co.ta.t;
	hb.addr = (uintptr_t)caps;
	hb.size = sizeof(caps);
	if (dev_ioctl(co.dev, O_RDONLY, HTMTRACE_IOC_CAPS, &hb, "capabilities"))
		return EXIT_FAIL;
	if (hb.length > sizeof(caps)) {
		pr_err("capabilities: driver answered %u bytes for a %zu-byte block",
		       hb.length, sizeof(caps));
		return EXIT_FAIL;
	}
	if (json) {
		/* The block is opaque (PAPR does not publish its layout). */
		fputs("{\n  \"device\": ", stdout);
		json_string(stdout, co.dev);
		fputs(",\n  \"target\": ", stdout);
		json_target(stdout, &co.ta.t);
		printf(",\n  \"length\": %u,\n  \"hex\": ", hb.length);
		json_hex(stdout, caps, hb.length);
		fputs("\n}\n", stdout);
		return EXIT_OK;
	}
	printf("HTM capabilities from %s (%u bytes):\n", co.dev, hb.length);
	hexdump(stdout, caps, hb.length);
	return EXIT_OK;
}

static const struct option configure_options[] = {
	TARGET_OPTIONS,
	DEVICE_OPTION,
	{ "nowrap", no_argument, NULL, OPT_NOWRAP },
	{ "wait", no_argument, NULL, OPT_WAIT },
	{ "mode", required_argument, NULL, OPT_MODE },
	HELP_OPTION,
	OPTIONS_END,
};

int cmd_configure(int argc, char **argv)
{
	struct htmtrace_config cfg;
	struct cmd_opts co = { 0 };
	__u64 mask = 0, value = 0;
	__u32 flags = 0;
	int opt;

	while ((opt = next_option(argc, argv, ":t:n:p:c:d:h", configure_options,
				  &co)) > 0) {
		switch (opt) {
		case OPT_NOWRAP:
			flags |= HTMTRACE_CFG_NOWRAP;
			break;
		case OPT_WAIT:
			flags |= HTMTRACE_CFG_WAIT;
			break;
		case OPT_MODE:
			if (parse_mode_opt(optarg, &mask, &value, &flags))
				return EXIT_USAGE;
			break;
		}
	}
	if (opt)
		return co.status;
	if (target_require(&co.ta, TARGET_ALL))
		return EXIT_USAGE;

	memset(&cfg, 0, sizeof(cfg));
	cfg.target = co.ta.t;
	cfg.flags = flags;
	cfg.mode_mask = mask;
	cfg.mode_value = value;
	return dev_ioctl(co.dev, O_RDWR, HTMTRACE_IOC_CONFIGURE, &cfg,
			 "configure");
}

static const struct option dump_options[] = {
	DEVICE_OPTION,
	{ "output", required_argument, NULL, 'o' },
	{ "offset", required_argument, NULL, OPT_OFFSET },
	{ "bs", required_argument, NULL, OPT_BS },
	PROGRESS_OPTIONS,
	HELP_OPTION,
	OPTIONS_END,
};

/*
 * The output of dump --offset: FILE keeps its first @offset bytes, the
 * dump goes on after them. Returns the fd, or -1 after a message.
 */
static int open_resume(const char *path, __u64 offset)
{
	struct stat st;
	int fd, flags = O_WRONLY | O_CLOEXEC;

	/* Resuming into nothing is a mistake; from 0 it is a plain dump. */
	if (!offset)
		flags |= O_CREAT;
	fd = open(path, flags, 0644);
	if (fd < 0) {
		pr_errno(errno, "open %s", path);
		return -1;
	}
	if (fstat(fd, &st)) {
		pr_errno(errno, "stat %s", path);
		goto fail;
	}
	if (!S_ISREG(st.st_mode))
		return fd;
	if ((__u64)st.st_size < offset) {
		pr_err("%s holds %llu bytes, fewer than the offset %llu to resume at",
		       path, (unsigned long long)st.st_size,
		       (unsigned long long)offset);
		goto fail;
	}
	if (ftruncate(fd, offset) || lseek(fd, offset, SEEK_SET) < 0) {
		pr_errno(errno, "resume %s at offset %llu", path,
			 (unsigned long long)offset);
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return -1;
}

/* Is the trace still there to read again after this read() error? */
bool trace_remains(int err)
{
	return err != -ENODATA && err != -ESTALE && err != -ENOTTY &&
	       err != -EBADF && err != -EINVAL;
}

/* A write error that room on the disk cures. */
bool out_of_room(int err)
{
	return err == -ENOSPC || err == -EDQUOT || err == -EFBIG;
}

int cmd_dump(int argc, char **argv)
{
	struct cmd_opts co = { 0 };
	const char *dev = co.dev;
	const char *output = NULL;
	size_t bs = DEFAULT_BS;
	struct progress prog;
	struct htmtrace_status st;
	struct trace_copy tc = { 0 };
	char text[160];
	int mode = PROGRESS_AUTO, have_offset = 0, resumable, st_known = 1;
	int close_failed = 0;
	__u64 offset = 0, kept;
	int fd, out, opt, ret, err;

	while ((opt = next_option(argc, argv, ":d:o:h", dump_options,
				  &co)) > 0) {
		switch (opt) {
		case 'o':
			output = optarg;
			break;
		case OPT_OFFSET:
			if (parse_size(optarg, &offset) || offset > INT64_MAX)
				return usage_err("bad offset '%s': expected a byte count",
						 optarg);
			have_offset = 1;
			break;
		case OPT_BS:
			if (parse_bs(optarg, &bs))
				return EXIT_USAGE;
			break;
		case OPT_PROGRESS:
			mode = PROGRESS_ON;
			break;
		case OPT_NO_PROGRESS:
			mode = PROGRESS_OFF;
			break;
		}
	}
	if (opt)
		return co.status;
	if (output && !strcmp(output, "-"))
		output = NULL;
	if (!output && isatty(STDOUT_FILENO))
		return usage_err("refusing to write a binary trace to a terminal; use -o FILE or a redirection");

	if (catch_signals(0))
		return EXIT_FAIL;
	fd = open_device(dev, O_RDONLY);
	if (fd < 0)
		return EXIT_FAIL;
	if (offset && lseek(fd, offset, SEEK_SET) < 0) {
		pr_errno(errno, "seek %s to offset %llu", dev,
			 (unsigned long long)offset);
		close(fd);
		return EXIT_FAIL;
	}
	if (output) {
		if (have_offset) {
			out = open_resume(output, offset);
		} else {
			out = create_file(output);
			if (out < 0)
				pr_errno(-out, "create %s", output);
		}
		if (out < 0) {
			close(fd);
			return EXIT_FAIL;
		}
	} else {
		out = STDOUT_FILENO;
	}

	/* The size, for the progress line: unknown if STATUS fails. */
	progress_init(&prog, mode);
	if (prog.on) {
		query_status(fd, &st);
		prog.total = st.buffer_size;
	}
	tc.start = offset;
	err = copy_trace(fd, dev, out, output ? output : "standard output",
			 bs, &prog, &tc);
	kept = offset + tc.done;
	/*
	 * After the read: the size and where the data ended, if known; not
	 * after Ctrl-C, which asks for no more hypervisor calls.
	 */
	if (!tc.stopped)
		query_status(fd, &st);
	else if (!prog.on)
		st_known = 0;
	close(fd);
	if (output && close(out) && !err) {
		err = -1;
		tc.err = -errno;
		tc.write_err = 1;
		pr_errno(-tc.err, "close %s", output);
		pr_err("%s may hold less than the %llu bytes written to it: the dump is redone from the start",
		       output, (unsigned long long)kept);
		/* What reached the disk is not known: from the start. */
		kept = 0;
		close_failed = 1;
	}
	if (!err) {
		if (!output)
			return EXIT_OK;
		if (have_offset && offset) {
			format_of_buffer(text, sizeof(text), kept, &st);
			printf("wrote %llu bytes from offset %llu of %s to %s, which holds %s%s\n",
			       (unsigned long long)tc.done,
			       (unsigned long long)offset, dev, output, text,
			       ended_early(kept, &st));
		} else {
			format_of_buffer(text, sizeof(text), kept, &st);
			printf("wrote %s from %s to %s%s\n", text, dev, output,
			       ended_early(kept, &st));
		}
		return EXIT_OK;
	}

	ret = EXIT_FAIL;
	resumable = tc.write_err || tc.stopped || trace_remains(tc.err);
	/* A failed close said above what FILE may hold. */
	if (output && !kept && !have_offset && !close_failed) {
		unlink(output);
		pr_err("removed the empty %s", output);
	} else if (output && !close_failed) {
		if (st_known)
			format_of_buffer(text, sizeof(text), kept, &st);
		else
			snprintf(text, sizeof(text), "%llu bytes",
				 (unsigned long long)kept);
		pr_err("kept %s in %s: the dump is incomplete", text, output);
	} else if (tc.done) {
		pr_err("wrote %llu bytes to standard output: the dump is incomplete",
		       (unsigned long long)tc.done);
	}
	if (resumable) {
		pr_err("%s still holds the trace; to resume the dump%s:", dev,
		       tc.write_err && out_of_room(tc.err) ?
		       " once there is room" : "");
		print_dump_command(dev, output, kept);
	}
	return ret;
}

/* The blocks as one JSON object; with @hex, each block's bytes too. */
static void print_blocks_json(const char *what, const char *source,
			      const unsigned char *buf, size_t len,
			      size_t entry_size, int hex, __u64 nr_entries)
{
	struct hvblock blk;
	size_t off = 0;
	__u64 i = 0;

	printf("{\n  \"what\": \"%s\",\n  \"source\": ", what);
	json_string(stdout, source);
	printf(",\n  \"bytes\": %zu,\n  \"entries\": %llu,\n", len,
	       (unsigned long long)nr_entries);
	printf("  \"entry_size\": %zu,\n  \"blocks\": [", entry_size);
	while (off < len && !hvblock_parse(buf, len, off, entry_size, &blk)) {
		printf("%s\n    {\"offset\": %zu, \"size\": %zu, \"entries\": %llu, \"next\": %llu",
		       i++ ? "," : "", off, blk.size,
		       (unsigned long long)blk.nr_entries,
		       (unsigned long long)blk.next);
		if (hex) {
			fputs(", \"hex\": ", stdout);
			json_hex(stdout, buf + off, blk.size);
		}
		putchar('}');
		off += blk.size;
	}
	printf("%s]\n}\n", i ? "\n  " : "");
}

/* Print the blocks' headers, and their bytes with @hex. */
static void print_blocks(const unsigned char *buf, size_t len,
			 size_t entry_size, int hex)
{
	struct hvblock blk;
	size_t off = 0;
	__u64 i = 0;

	while (off < len && !hvblock_parse(buf, len, off, entry_size, &blk)) {
		printf("block %llu: offset %zu, %llu %s, next 0x%016llx\n",
		       (unsigned long long)i++, off,
		       (unsigned long long)blk.nr_entries,
		       plural(blk.nr_entries, "entry", "entries"),
		       (unsigned long long)blk.next);
		if (hex)
			hexdump(stdout, buf + off, blk.size);
		off += blk.size;
	}
}

static const struct option conf_options[] = {
	TARGET_OPTIONS,
	DEVICE_OPTION,
	{ "output", required_argument, NULL, 'o' },
	{ "input", required_argument, NULL, 'i' },
	{ "hex", no_argument, NULL, OPT_HEX },
	{ "json", no_argument, NULL, OPT_JSON },
	HELP_OPTION,
	OPTIONS_END,
};

/* sysmem and sysproc; @name for the JSON output. */
static int conf_dump(int argc, char **argv, unsigned long cmd,
		     size_t entry_size, const char *what, const char *name)
{
	const char *output = NULL, *input = NULL;
	unsigned char *buf = NULL;
	struct cmd_opts co = { 0 };
	const char *dev = co.dev;
	int hex = 0, json = 0;
	__u64 nr_blocks, nr_entries;
	size_t len, bad;
	int fd, opt, err;

	while ((opt = next_option(argc, argv, ":t:n:p:c:d:o:i:h", conf_options,
				  &co)) > 0) {
		switch (opt) {
		case 'o':
			output = optarg;
			break;
		case 'i':
			input = optarg;
			break;
		case OPT_HEX:
			hex = 1;
			break;
		case OPT_JSON:
			json = 1;
			break;
		}
	}
	if (opt)
		return co.status;
	if (input && (output || co.dev_given || co.ta.given))
		return usage_err("-i FILE decodes a file: it takes no -o, -d or target");
	if (output && (hex || json))
		return usage_err("%s prints blocks: it takes no -o",
				 hex ? "--hex" : "--json");

	if (input) {
		err = read_file(input, &buf, &len);
		if (err) {
			pr_errno(-err, "read %s", input);
			return EXIT_FAIL;
		}
	} else {
		fd = open_device(dev, O_RDONLY);
		if (fd < 0)
			return EXIT_FAIL;
		err = fetch_hvbuf(fd, dev, cmd, what, &co.ta.t, &buf, &len);
		close(fd);
		if (err)
			return EXIT_FAIL;
	}

	if (count_blocks(buf, len, entry_size, &nr_blocks, &nr_entries,
			 &bad)) {
		pr_err("%s: malformed block at offset %zu of %zu bytes",
		       input ? input : dev, bad, len);
		free(buf);
		return EXIT_FAIL;
	}

	if (output) {
		fd = create_file(output);
		if (fd < 0) {
			pr_errno(-fd, "create %s", output);
			free(buf);
			return EXIT_FAIL;
		}
		err = write_all(fd, buf, len);
		if (close(fd) && !err)
			err = -errno;
		free(buf);
		if (err) {
			pr_errno(-err, "write %s", output);
			unlink(output);
			return EXIT_FAIL;
		}
		printf("wrote %zu bytes (%llu %s, %llu %s) to %s\n",
		       len, (unsigned long long)nr_blocks,
		       plural(nr_blocks, "block", "blocks"),
		       (unsigned long long)nr_entries,
		       plural(nr_entries, "entry", "entries"), output);
		return EXIT_OK;
	}

	if (json) {
		print_blocks_json(name, input ? input : dev, buf, len,
				  entry_size, hex, nr_entries);
		free(buf);
		return EXIT_OK;
	}
	printf("%s: %llu %s, %llu %s, %zu bytes\n",
	       input ? input : dev, (unsigned long long)nr_blocks,
	       plural(nr_blocks, "block", "blocks"),
	       (unsigned long long)nr_entries,
	       plural(nr_entries, "entry", "entries"), len);
	print_blocks(buf, len, entry_size, hex);
	free(buf);
	return EXIT_OK;
}

int cmd_sysmem(int argc, char **argv)
{
	return conf_dump(argc, argv, HTMTRACE_IOC_SYSMEM, HTMTRACE_SYSMEM_ENTRY_SIZE,
			 "memory configuration", "sysmem");
}

int cmd_sysproc(int argc, char **argv)
{
	return conf_dump(argc, argv, HTMTRACE_IOC_SYSPROC, HTMTRACE_SYSPROC_ENTRY_SIZE,
			 "processor configuration", "sysproc");
}
