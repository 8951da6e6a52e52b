// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace load / unload: insert and remove the modules with libkmod, the
 * way kmod's insmod and rmmod do (a .ko path, no modprobe configuration).
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libkmod.h>

#include "htmtrace.h"

#define MOD_MAIN	"htmtrace"
#define MOD_SIM		"htmtrace_hvsim"
#define MODULE_DIR	"/lib/modules/htmtrace"

/* Is @dir/@name.ko readable? Builds the path in @path either way. */
static int ko_path(char *path, size_t len, const char *dir, const char *name)
{
	int ret = snprintf(path, len, "%s/%s.ko", dir, name);

	if (ret < 0 || (size_t)ret >= len)
		return -ENAMETOOLONG;
	return access(path, R_OK) ? -errno : 0;
}

static void ko_missing(int err, const char *path, const char *dir_opt)
{
	pr_errno(-err, "%s", path);
	if (!dir_opt)
		pr_err("no modules in %s or next to the htmtrace binary; use --dir DIR",
		       MODULE_DIR);
}

/*
 * The directory of the .ko files: --dir, else MODULE_DIR if it holds
 * htmtrace.ko, else the directory of this binary.
 */
static int module_dir(char *dir, size_t len, const char *dir_opt)
{
	char path[PATH_MAX], exe[PATH_MAX];
	ssize_t n;
	int ret;

	if (dir_opt) {
		ret = snprintf(dir, len, "%s", dir_opt);
		return ret < 0 || (size_t)ret >= len ? -ENAMETOOLONG : 0;
	}
	if (!ko_path(path, sizeof(path), MODULE_DIR, MOD_MAIN)) {
		snprintf(dir, len, "%s", MODULE_DIR);
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		return -errno;
	exe[n] = '\0';
	ret = snprintf(dir, len, "%s", dirname(exe));
	return ret < 0 || (size_t)ret >= len ? -ENAMETOOLONG : 0;
}

/* Append NAME=VALUE to a module option string, quoting a VALUE with blanks. */
static void append_param(char *opts, const char *param)
{
	const char *eq = strchr(param, '=');

	if (*opts)
		strcat(opts, " ");
	if (!strpbrk(eq + 1, " \t")) {
		strcat(opts, param);
		return;
	}
	strncat(opts, param, eq + 1 - param);
	strcat(opts, "\"");
	strcat(opts, eq + 1);
	strcat(opts, "\"");
}

static const char *insert_hint(int err)
{
	switch (err) {
	case ENOEXEC:
		return "invalid module format: built for another kernel?";
	case ENOENT:
	case ESRCH:
		return "unknown symbol in module: is htmtrace.ko loaded, and built for this kernel?";
	case EPERM:
		return "loading modules needs CAP_SYS_MODULE (root)";
	case EINVAL:
		return "the kernel refused the module or a parameter: see dmesg";
	}
	return NULL;
}

/* Returns 0 or -1 (reported). */
static int load_one(struct kmod_ctx *ctx, const char *path, const char *opts)
{
	struct kmod_module *mod;
	const char *hint;
	int err;

	err = kmod_module_new_from_path(ctx, path, &mod);
	if (err < 0) {
		pr_errno(-err, "%s", path);
		return -1;
	}
	if (kmod_module_get_initstate(mod) >= 0) {
		printf("module %s is already loaded\n",
		       kmod_module_get_name(mod));
		if (*opts)
			printf("parameters not applied: %s\n", opts);
		kmod_module_unref(mod);
		return 0;
	}
	err = kmod_module_insert_module(mod, 0, opts);
	if (err == -EEXIST) {
		printf("module %s is already loaded\n",
		       kmod_module_get_name(mod));
		err = 0;
	} else if (err < 0) {
		pr_errno(-err, "load %s", path);
		hint = insert_hint(-err);
		if (hint)
			pr_err("%s", hint);
	} else {
		printf("loaded %s%s%s\n", path, *opts ? " " : "", opts);
	}
	kmod_module_unref(mod);
	return err < 0 ? -1 : 0;
}

/* A libkmod context without modprobe configuration; NULL (reported) if none. */
static struct kmod_ctx *kmod_context(void)
{
	static const char *const null_config[] = { NULL };
	struct kmod_ctx *ctx = kmod_new(NULL, null_config);

	if (!ctx)
		pr_err("libkmod: cannot create a context");
	return ctx;
}

static const struct option load_options[] = {
	{ "sim", no_argument, NULL, OPT_SIM },
	{ "dir", required_argument, NULL, OPT_DIR },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	HELP_OPTION,
	OPTIONS_END,
};

int cmd_load(int argc, char **argv)
{
	char dir[PATH_MAX], main_path[PATH_MAX], sim_path[PATH_MAX];
	const char *dir_opt = NULL, *param;
	struct cmd_opts co = { .operands = 1 };
	struct kmod_ctx *ctx;
	char *main_opts = NULL, *sim_opts = NULL;
	size_t len = 1;
	int sim = 0, dry_run = 0, to_sim;
	int i, opt, err, ret = EXIT_FAIL;

	while ((opt = next_option(argc, argv, ":h", load_options, &co)) > 0) {
		switch (opt) {
		case OPT_SIM:
			sim = 1;
			break;
		case OPT_DIR:
			dir_opt = optarg;
			break;
		case OPT_DRY_RUN:
			dry_run = 1;
			break;
		}
	}
	if (opt)
		return co.status;
	for (i = optind; i < argc; i++) {
		if (split_module_param(argv[i], &param, &to_sim))
			return usage_err("bad module parameter '%s': expected NAME=VALUE",
					 argv[i]);
		if (to_sim && !sim)
			return usage_err("'%s' is a simulator parameter: add --sim",
					 argv[i]);
		/* Room for a separator and two quotes. */
		len += strlen(param) + 3;
	}

	main_opts = calloc(1, len);
	sim_opts = calloc(1, len);
	if (!main_opts || !sim_opts) {
		pr_errno(ENOMEM, "module parameters");
		goto out;
	}
	for (i = optind; i < argc; i++) {
		split_module_param(argv[i], &param, &to_sim);
		append_param(to_sim ? sim_opts : main_opts, param);
	}

	err = module_dir(dir, sizeof(dir), dir_opt);
	if (err) {
		pr_errno(-err, "module directory");
		goto out;
	}
	err = ko_path(main_path, sizeof(main_path), dir, MOD_MAIN);
	if (err) {
		ko_missing(err, main_path, dir_opt);
		goto out;
	}
	if (sim) {
		err = ko_path(sim_path, sizeof(sim_path), dir, MOD_SIM);
		if (err) {
			ko_missing(err, sim_path, dir_opt);
			goto out;
		}
	}

	if (dry_run) {
		printf("insmod %s%s%s\n", main_path, *main_opts ? " " : "",
		       main_opts);
		if (sim)
			printf("insmod %s%s%s\n", sim_path,
			       *sim_opts ? " " : "", sim_opts);
		ret = EXIT_OK;
		goto out;
	}

	ctx = kmod_context();
	if (!ctx)
		goto out;
	/* The simulator registers with htmtrace.ko: load that first. */
	if (!load_one(ctx, main_path, main_opts) &&
	    (!sim || !load_one(ctx, sim_path, sim_opts)))
		ret = EXIT_OK;
	kmod_unref(ctx);
out:
	free(main_opts);
	free(sim_opts);
	return ret;
}

/* Returns 1 if loaded, 0 if not, -1 (reported) on error. */
static int module_loaded(struct kmod_ctx *ctx, const char *name,
			 struct kmod_module **modp)
{
	int err;

	err = kmod_module_new_from_name(ctx, name, modp);
	if (err < 0) {
		pr_errno(-err, "module %s", name);
		return -1;
	}
	if (kmod_module_get_initstate(*modp) >= 0)
		return 1;
	kmod_module_unref(*modp);
	*modp = NULL;
	return 0;
}

/* Returns 0 or -1 (reported). */
static int unload_one(struct kmod_ctx *ctx, const char *name)
{
	struct kmod_module *mod;
	int err;

	err = module_loaded(ctx, name, &mod);
	if (err < 0)
		return -1;
	if (!err) {
		printf("module %s is not loaded\n", name);
		return 0;
	}
	if (kmod_module_get_initstate(mod) == KMOD_MODULE_BUILTIN) {
		pr_err("module %s is built into the kernel", name);
		kmod_module_unref(mod);
		return -1;
	}
	err = kmod_module_remove_module(mod, KMOD_REMOVE_NOLOG);
	kmod_module_unref(mod);
	if (err < 0) {
		pr_errno(-err, "unload %s", name);
		if (err == -EBUSY || err == -EAGAIN)
			pr_err("%s is in use: close /dev/htm* and end perf sessions",
			       name);
		else if (err == -EPERM)
			pr_err("unloading modules needs CAP_SYS_MODULE (root)");
		return -1;
	}
	printf("unloaded %s\n", name);
	return 0;
}

static const struct option unload_options[] = {
	{ "sim", no_argument, NULL, OPT_SIM },
	HELP_OPTION,
	OPTIONS_END,
};

int cmd_unload(int argc, char **argv)
{
	struct cmd_opts co = { 0 };
	struct kmod_module *mod;
	struct kmod_ctx *ctx;
	int sim = 0, opt, loaded, ret = EXIT_FAIL;

	while ((opt = next_option(argc, argv, ":h", unload_options, &co)) > 0) {
		switch (opt) {
		case OPT_SIM:
			sim = 1;
			break;
		}
	}
	if (opt)
		return co.status;

	ctx = kmod_context();
	if (!ctx)
		return EXIT_FAIL;
	if (sim) {
		if (unload_one(ctx, MOD_SIM))
			goto out;
	} else {
		/* The simulator holds htmtrace.ko: say so rather than EBUSY. */
		loaded = module_loaded(ctx, MOD_SIM, &mod);
		if (loaded < 0)
			goto out;
		if (loaded) {
			kmod_module_unref(mod);
			pr_err("%s is loaded: use 'htmtrace unload --sim'",
			       MOD_SIM);
			goto out;
		}
	}
	if (!unload_one(ctx, MOD_MAIN))
		ret = EXIT_OK;
out:
	kmod_unref(ctx);
	return ret;
}
