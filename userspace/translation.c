// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace translation: the translation files that IBM's perf HTM series
 * cannot write with a PMU in a module.
 *
 * That perf's "perf report" writes the AUX data of each htm event to
 * htm.bin.n<node>.p<chip>.c<core> in the current folder, and the memory
 * configuration to translation.n<node>.p<chip>.c<core> beside it, the
 * latter only from PERF_SAMPLE_RAW samples of the event, one per block
 * (tools/perf/util/powerpc-htm.c@449ce6f5 in intel-lab-lkp/linux). A
 * module cannot emit samples (perf_event_overflow() is not exported), so
 * with our htm PMU perf report writes the htm.bin files alone, and
 * htmdecode lacks the translation. This command writes it: the blocks of
 * H_HTM DUMP_SYSMEM_CONF, asked of target 0 as the PMU proposal asks, back
 * to back as the hypervisor wrote them, which is what perf writes from
 * its samples and what "htmtrace record" writes (fetch_sysmem()), under
 * perf's name for each htm.bin file found.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chan.h"
#include "commands.h"
#include "opts.h"
#include "util.h"

/* The unit of a trace file perf report wrote. */
struct perf_unit {
	unsigned int node, chip, core;
};

/*
 * A decimal index at *@s as perf prints it (%d: no sign, no leading
 * zero), at most HTMTRACE_INDEX_MAX; *@s moves past it. Returns 0 or -1.
 */
static int perf_index(const char **s, unsigned int *v)
{
	const char *p = *s;
	unsigned long n = 0;

	if (*p < '0' || *p > '9' || (*p == '0' && p[1] >= '0' && p[1] <= '9'))
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		n = n * 10 + (unsigned long)(*p - '0');
		if (n > HTMTRACE_INDEX_MAX)
			return -1;
	}
	*v = n;
	*s = p;
	return 0;
}

/* @name is exactly "htm.bin.nN.pP.cC" (no ".tT"): 0 and the unit, or -1. */
static int perf_trace_name(const char *name, struct perf_unit *u)
{
	const char *s = name;

	if (strncmp(s, "htm.bin.n", 9))
		return -1;
	s += 9;
	if (perf_index(&s, &u->node) || strncmp(s, ".p", 2))
		return -1;
	s += 2;
	if (perf_index(&s, &u->chip) || strncmp(s, ".c", 2))
		return -1;
	s += 2;
	if (perf_index(&s, &u->core) || *s)
		return -1;
	return 0;
}

static int unit_cmp(const void *a, const void *b)
{
	const struct perf_unit *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->chip != y->chip)
		return x->chip < y->chip ? -1 : 1;
	if (x->core != y->core)
		return x->core < y->core ? -1 : 1;
	return 0;
}

/*
 * The units of the regular files named as perf names its traces in @dir,
 * sorted. Returns their number (*@units malloc()ed), or -1 (reported).
 */
static long find_perf_traces(const char *dir, struct perf_unit **units)
{
	struct perf_unit *u = NULL, *nu, one;
	char path[PATH_MAX];
	struct dirent *de;
	size_t n = 0, cap = 0;
	struct stat st;
	DIR *d;

	d = opendir(dir);
	if (!d) {
		pr_errno(errno, "open %s", dir);
		return -1;
	}
	for (errno = 0; (de = readdir(d)); errno = 0) {
		if (perf_trace_name(de->d_name, &one))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir,
				     de->d_name) >= sizeof(path) ||
		    stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			nu = realloc(u, cap * sizeof(*u));
			if (!nu) {
				pr_errno(ENOMEM, "list %s", dir);
				goto fail;
			}
			u = nu;
		}
		u[n++] = one;
	}
	if (errno) {
		pr_errno(errno, "read %s", dir);
		goto fail;
	}
	closedir(d);
	qsort(u, n, sizeof(*u), unit_cmp);
	*units = u;
	return (long)n;
fail:
	closedir(d);
	free(u);
	return -1;
}

/* Write @buf to @path under a temporary name, renamed once whole. */
static int write_translation(const char *path, const unsigned char *buf,
			     size_t len)
{
	struct out_file of;
	int fd, err;

	fd = out_open(&of, path);
	if (fd < 0) {
		pr_errno(-fd, "create %s", path);
		return -1;
	}
	err = write_all(fd, buf, len);
	if (err) {
		close(fd);
		pr_errno(-err, "write %s", path);
	} else {
		err = sync_close(fd);
		if (err)
			pr_errno(-err, "close %s", path);
		else if ((err = out_commit(&of)))
			pr_errno(-err, "rename to %s", path);
	}
	if (err)
		out_discard(&of);
	return err ? -1 : 0;
}

static const struct option translation_options[] = {
	DEVICE_OPTION,
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	HELP_OPTION,
	OPTIONS_END,
};

int cmd_translation(int argc, char **argv)
{
	struct cmd_opts co = { .operands = 1 };
	const char *dir = ".", *prefix = "";
	struct perf_unit *units = NULL;
	unsigned char *buf = NULL;
	__u64 nr_blocks, nr_entries;
	char path[PATH_MAX];
	int opt, dry_run = 0, fd, ret = EXIT_OK;
	size_t len, failed = 0;
	long i, n;

	while ((opt = next_option(argc, argv, ":d:h", translation_options,
				  &co)) > 0)
		if (opt == OPT_DRY_RUN)
			dry_run = 1;
	if (opt)
		return co.status;
	if (optind + 1 < argc)
		return usage_err("unexpected argument '%s'", argv[optind + 1]);
	if (optind < argc) {
		dir = argv[optind];
		if (!*dir)
			return usage_err("empty DIR");
		prefix = dir[strlen(dir) - 1] == '/' ? "" : "/";
	}

	n = find_perf_traces(dir, &units);
	if (n < 0)
		return EXIT_FAIL;
	if (!n) {
		pr_err("%s: no htm.bin.nN.pP.cC file (the trace files perf report writes)",
		       dir);
		return EXIT_FAIL;
	}
	if (!dry_run) {
		fd = open_device(co.dev, O_RDONLY);
		if (fd < 0 || fetch_sysmem(fd, co.dev, &buf, &len, &nr_blocks,
					   &nr_entries)) {
			if (fd >= 0)
				close(fd);
			free(units);
			return EXIT_FAIL;
		}
		close(fd);
	}
	for (i = 0; i < n; i++) {
		if ((size_t)snprintf(path, sizeof(path),
				     "%s%stranslation.n%u.p%u.c%u",
				     optind < argc ? dir : "", prefix,
				     units[i].node, units[i].chip,
				     units[i].core) >= sizeof(path)) {
			pr_errno(ENAMETOOLONG, "%s", dir);
			failed++;
			continue;
		}
		if (dry_run)
			printf("%s\n", path);
		else if (write_translation(path, buf, len))
			failed++;
		else
			print_sysmem_written(stdout, len, nr_blocks,
					     nr_entries, path);
	}
	if (failed) {
		pr_err("%zu of %ld translation files not written", failed, n);
		ret = EXIT_FAIL;
	}
	free(buf);
	free(units);
	if (fflush(stdout))
		ret = EXIT_FAIL;
	return ret;
}
