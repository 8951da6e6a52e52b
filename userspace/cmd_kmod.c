// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace load / unload: insert and remove the modules with libkmod.
 *
 * load finds htmtrace.ko, in this order: in --dir DIR (as insmod: a file,
 * no modprobe configuration); else by name, as modprobe does (modules.dep
 * of the running kernel, options and blacklist from modprobe.d), for a
 * module installed by DKMS or make install; else in /lib/modules/htmtrace
 * or next to the binary, as insmod. --sim loads a test build, which is
 * never installed: both modules then come from a directory, the simulator
 * first, then htmtrace.ko backend=sim, which takes the simulator's
 * operations at load. unload removes the modules by name, as rmmod does:
 * htmtrace.ko, then the simulator.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#ifdef HTMTRACE_NO_KMOD
/*
 * Built without libkmod (make found no libkmod-dev): the tool reads and
 * reports captures, and load and unload say why they cannot run.
 */
#define KMOD_PACKAGES \
	"libkmod-dev (Debian, Ubuntu), kmod-devel (RHEL, Fedora) or libkmod-devel (SLES, openSUSE)"
#include "commands.h"
#include "util.h"

static int no_kmod(void)
{
	pr_err("this htmtrace was built without libkmod (install %s and rebuild); load the modules with modprobe or insmod instead",
	       KMOD_PACKAGES);
	return EXIT_FAIL;
}

int cmd_load(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return no_kmod();
}

int cmd_unload(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return no_kmod();
}
#else
#include <libkmod.h>

#include "commands.h"
#include "opts.h"
#include "util.h"

#define MOD_MAIN	"htmtrace"
#define MOD_SIM		"htmtrace_hvsim"
#define SIM_BACKEND	"backend=sim"
#define MODULE_DIR	"/lib/modules/htmtrace"

/* Is @dir/@name.ko readable? Builds the path in @path either way. */
static int ko_path(char *path, size_t len, const char *dir, const char *name)
{
	int ret = snprintf(path, len, "%s/%s.ko", dir, name);

	if (ret < 0 || (size_t)ret >= len)
		return -ENAMETOOLONG;
	return access(path, R_OK) ? -errno : 0;
}

/* @root (or "") followed by @path. Returns 0 or -ENAMETOOLONG. */
static int rooted(char *buf, size_t len, const char *root, const char *path)
{
	int ret = snprintf(buf, len, "%s%s", root ? root : "", path);

	return ret < 0 || (size_t)ret >= len ? -ENAMETOOLONG : 0;
}

/* The directory of this binary, in @dir. Returns 0 or -errno. */
static int exe_dir(char *dir, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n;
	int ret;

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
	case ENODEV:
		return "not a PowerVM partition, or backend=sim without htmtrace_hvsim loaded: see dmesg";
	}
	return NULL;
}

/* Report a failed insertion of @what (a path or a module name). */
static void insert_failed(int err, const char *what)
{
	const char *hint = insert_hint(err);

	pr_errno(err, "load %s", what);
	if (hint)
		pr_err("%s", hint);
}

/* Is module @name loaded (or being loaded, or built in)? */
static int is_loaded(struct kmod_ctx *ctx, const char *name)
{
	struct kmod_module *mod;
	int state;

	if (kmod_module_new_from_name(ctx, name, &mod) < 0)
		return 0;
	state = kmod_module_get_initstate(mod);
	kmod_module_unref(mod);
	return state >= 0;
}

/* Was the loaded htmtrace.ko given backend=sim (a test build)? */
static int main_has_sim(void)
{
	char line[16] = "";
	FILE *f = fopen("/sys/module/" MOD_MAIN "/parameters/backend", "r");

	if (!f)
		return 0;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	return !strcmp(line, "sim\n");
}

static void say_loaded(const char *name, const char *opts)
{
	printf("module %s is already loaded\n", name);
	if (*opts)
		printf("parameters not applied: %s\n", opts);
}

/* Insert one .ko file, as insmod does. Returns 0 or -1 (reported). */
static int load_one(struct kmod_ctx *ctx, const char *path, const char *opts)
{
	struct kmod_module *mod;
	int err;

	err = kmod_module_new_from_path(ctx, path, &mod);
	if (err < 0) {
		pr_errno(-err, "%s", path);
		return -1;
	}
	if (kmod_module_get_initstate(mod) >= 0) {
		say_loaded(kmod_module_get_name(mod), opts);
		kmod_module_unref(mod);
		return 0;
	}
	err = kmod_module_insert_module(mod, 0, opts);
	if (err == -EEXIST) {
		say_loaded(kmod_module_get_name(mod), "");
		err = 0;
	} else if (err < 0) {
		insert_failed(-err, path);
	} else {
		printf("loaded %s%s%s\n", path, *opts ? " " : "", opts);
	}
	kmod_module_unref(mod);
	return err < 0 ? -1 : 0;
}

/*
 * Where the modprobe configuration is read from, as kmod reads it; under
 * --root DIR, the same folders under DIR.
 */
static const char *const config_dirs[] = {
	"/etc/modprobe.d",
	"/run/modprobe.d",
	"/usr/local/lib/modprobe.d",
	"/usr/lib/modprobe.d",
	"/lib/modprobe.d",
};

/* The lookup of a module by name: where, with which configuration. */
struct kmod_place {
	const char *root;			/* --root, or NULL for / */
	char moddir[PATH_MAX];			/* ROOT/lib/modules/KVER */
	char config[ARRAY_SIZE(config_dirs)][PATH_MAX];
	const char *config_paths[ARRAY_SIZE(config_dirs) + 1];
};

/*
 * A libkmod context for the modules of the running kernel under @root (or
 * /) and the modprobe configuration there; NULL (reported) if none.
 */
static struct kmod_ctx *kmod_context(struct kmod_place *pl, const char *root)
{
	struct kmod_ctx *ctx;
	struct utsname u;
	unsigned int i;

	memset(pl, 0, sizeof(*pl));
	pl->root = root;
	if (uname(&u)) {
		pr_errno(errno, "uname");
		return NULL;
	}
	if ((size_t)snprintf(pl->moddir, sizeof(pl->moddir), "%s/lib/modules/%s",
			     root ? root : "", u.release) >= sizeof(pl->moddir)) {
		pr_errno(ENAMETOOLONG, "--root %s", root);
		return NULL;
	}
	for (i = 0; i < ARRAY_SIZE(config_dirs); i++) {
		/* Shorter than moddir's room, which fitted. */
		rooted(pl->config[i], sizeof(pl->config[i]), root,
		       config_dirs[i]);
		pl->config_paths[i] = pl->config[i];
	}
	ctx = kmod_new(pl->moddir, pl->config_paths);
	if (!ctx)
		pr_err("libkmod: cannot create a context for %s", pl->moddir);
	return ctx;
}

/*
 * What a lookup by name does, for the report after it: each module probed
 * (the dependencies first) as "PATH OPTIONS" or "install COMMAND", and
 * whether to print it as it comes (--dry-run). libkmod's callback takes
 * no data pointer, hence a file-scope variable.
 */
static struct {
	int dry_run;
	char *done;		/* lines to print once the probe succeeded */
	size_t len;
	int nomem;
} probe_log;

static void probe_action(struct kmod_module *m, bool install,
			 const char *options)
{
	const char *what = install ? kmod_module_get_install_commands(m) :
				     kmod_module_get_path(m);
	const char *verb = install ? "install" : "insmod";
	char *line, *n;
	int len;

	if (!what)
		what = kmod_module_get_name(m);
	if (probe_log.dry_run) {
		printf("%s %s%s%s\n", verb, what, *options ? " " : "", options);
		return;
	}
	len = asprintf(&line, "%s %s%s%s\n", install ? "ran install command" :
		       "loaded", what, *options ? " " : "", options);
	if (len < 0) {
		probe_log.nomem = 1;
		return;
	}
	n = realloc(probe_log.done, probe_log.len + len + 1);
	if (!n) {
		probe_log.nomem = 1;
		free(line);
		return;
	}
	memcpy(n + probe_log.len, line, len + 1);
	probe_log.done = n;
	probe_log.len += len;
	free(line);
}

/* The modprobe.d folders, for messages: "DIR, DIR, ... or DIR". */
static void config_list(char *buf, size_t len, const struct kmod_place *pl)
{
	size_t off = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(config_dirs) && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s",
				!i ? "" : i + 1 < ARRAY_SIZE(config_dirs) ?
				", " : " or ", pl->config[i]);
}

/*
 * Load htmtrace by name, the way modprobe does: found in modules.dep of
 * the running kernel (or an install command or alias of the modprobe
 * configuration), with the options of the configuration before
 * @opts, refused if the configuration blacklists it.
 *
 * Return: 0 if loaded (or already loaded), -ENOENT if the lookup found
 * nothing (not reported: the caller goes on to the directories), or -1
 * after reporting an error.
 */
static int load_by_name(struct kmod_ctx *ctx, const struct kmod_place *pl,
			const char *opts, int dry_run)
{
	unsigned int flags = KMOD_PROBE_APPLY_BLACKLIST |
			     KMOD_PROBE_FAIL_ON_LOADED;
	struct kmod_list *list = NULL, *l;
	char dirs[sizeof(pl->config)];
	const char *path;
	int err, ret = 0;

	err = kmod_module_new_from_lookup(ctx, MOD_MAIN, &list);
	if (err < 0) {
		pr_errno(-err, "look up module %s in %s", MOD_MAIN, pl->moddir);
		return -1;
	}
	if (!list)
		return -ENOENT;
	if (dry_run)
		flags |= KMOD_PROBE_DRY_RUN;
	probe_log.dry_run = dry_run;
	kmod_list_foreach(l, list) {
		struct kmod_module *mod = kmod_module_get_module(l);
		const char *name = kmod_module_get_name(mod);

		err = kmod_module_probe_insert_module(mod, flags, opts, NULL,
						      NULL, probe_action);
		path = kmod_module_get_path(mod);
		if (err == -EEXIST) {
			say_loaded(name, opts);
		} else if (err == KMOD_PROBE_APPLY_BLACKLIST) {
			config_list(dirs, sizeof(dirs), pl);
			pr_err("module %s is blacklisted by the modprobe configuration ('blacklist %s' in %s, or modprobe.blacklist= on the kernel command line): not loaded",
			       name, name, dirs);
			pr_err("remove that entry to load it by name, or give --dir DIR to load a file");
			ret = -1;
		} else if (err == -ENOENT && path && access(path, F_OK)) {
			pr_err("load %s: %s, named by %s/modules.dep, is missing: run depmod",
			       name, path, pl->moddir);
			ret = -1;
		} else if (err < 0) {
			insert_failed(-err, path ? path : name);
			ret = -1;
		}
		kmod_module_unref(mod);
		if (ret)
			break;
	}
	kmod_module_unref_list(list);
	if (!ret && !dry_run) {
		if (probe_log.nomem)
			printf("loaded %s\n", MOD_MAIN);
		else if (probe_log.done)
			fputs(probe_log.done, stdout);
	}
	free(probe_log.done);
	probe_log.done = NULL;
	probe_log.len = 0;
	return ret;
}

/*
 * The directory of the .ko files when not loaded by name: --dir, else
 * ROOT/lib/modules/htmtrace if it holds htmtrace.ko, else the directory of
 * this binary. @fixed: the module directory under ROOT, for messages.
 */
static int module_dir(char *dir, size_t len, const char *dir_opt,
		      const char *fixed)
{
	char path[PATH_MAX];
	int ret;

	if (dir_opt) {
		ret = snprintf(dir, len, "%s", dir_opt);
		return ret < 0 || (size_t)ret >= len ? -ENAMETOOLONG : 0;
	}
	if (!ko_path(path, sizeof(path), fixed, MOD_MAIN)) {
		snprintf(dir, len, "%s", fixed);
		return 0;
	}
	return exe_dir(dir, len);
}

static const struct option load_options[] = {
	{ "sim", no_argument, NULL, OPT_SIM },
	{ "dir", required_argument, NULL, OPT_DIR },
	{ "root", required_argument, NULL, OPT_ROOT },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	HELP_OPTION,
	OPTIONS_END,
};

int cmd_load(int argc, char **argv)
{
	char dir[PATH_MAX], main_path[PATH_MAX], sim_path[PATH_MAX];
	char fixed[PATH_MAX], exe[PATH_MAX];
	const char *dir_opt = NULL, *root = NULL, *param;
	struct cmd_opts co = { .operands = 1 };
	struct kmod_place pl;
	struct kmod_ctx *ctx = NULL;
	char *main_opts = NULL, *ins_opts = NULL, *sim_opts = NULL;
	size_t len = sizeof(SIM_BACKEND) + 1;
	int sim = 0, dry_run = 0, to_sim, by_name = 0, main_loaded;
	int sim_loaded = 0;
	int i, opt, err, ret = EXIT_FAIL;

	while ((opt = next_option(argc, argv, ":h", load_options, &co)) > 0) {
		switch (opt) {
		case OPT_SIM:
			sim = 1;
			break;
		case OPT_DIR:
			dir_opt = optarg;
			break;
		case OPT_ROOT:
			if (!*optarg)
				return usage_err("bad root ''");
			/* "/" is no root: the lookup's paths start with '/'. */
			root = strcmp(optarg, "/") ? optarg : NULL;
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
	ins_opts = calloc(1, len);
	sim_opts = calloc(1, len);
	if (!main_opts || !ins_opts || !sim_opts) {
		pr_errno(ENOMEM, "module parameters");
		goto out;
	}
	/* The test build's htmtrace.ko takes the simulator at load. */
	if (sim)
		strcpy(ins_opts, SIM_BACKEND);
	for (i = optind; i < argc; i++) {
		split_module_param(argv[i], &param, &to_sim);
		append_param(to_sim ? sim_opts : main_opts, param);
		if (!to_sim)
			append_param(ins_opts, param);
	}
	if (rooted(fixed, sizeof(fixed), root, MODULE_DIR)) {
		pr_errno(ENAMETOOLONG, "--root %s", root);
		goto out;
	}

	ctx = kmod_context(&pl, root);
	if (!ctx)
		goto out;
	/* Loaded, from wherever: nothing to find. */
	main_loaded = is_loaded(ctx, MOD_MAIN);
	if (sim)
		sim_loaded = is_loaded(ctx, MOD_SIM);
	if (main_loaded) {
		if (sim && !main_has_sim()) {
			pr_err("%s is loaded without the simulator (not backend=sim): 'htmtrace unload' first",
			       MOD_MAIN);
			goto out;
		}
		if (sim)
			say_loaded(MOD_SIM, sim_opts);
		say_loaded(MOD_MAIN, main_opts);
		ret = EXIT_OK;
		goto out;
	} else if (!sim && !dir_opt) {
		/*
		 * Installed (DKMS, make install): by name. Never with --sim:
		 * an installed htmtrace.ko is a production build, which has
		 * no simulator backend.
		 */
		err = load_by_name(ctx, &pl, main_opts, dry_run);
		if (err != -ENOENT) {
			ret = err ? EXIT_FAIL : EXIT_OK;
			goto out;
		}
		by_name = 1;
	}

	err = module_dir(dir, sizeof(dir), dir_opt, fixed);
	if (err) {
		pr_errno(-err, "module directory");
		goto out;
	}
	err = ko_path(main_path, sizeof(main_path), dir, MOD_MAIN);
	if (err && !dir_opt) {
		if (exe_dir(exe, sizeof(exe)))
			snprintf(exe, sizeof(exe), "?");
		if (by_name)
			pr_err("module %s not found: not installed for this kernel (no %s in %s/modules.dep), no %s.ko in %s nor next to the htmtrace binary (%s)",
			       MOD_MAIN, MOD_MAIN, pl.moddir, MOD_MAIN, fixed,
			       exe);
		else
			pr_err("no %s.ko in %s nor next to the htmtrace binary (%s)",
			       MOD_MAIN, fixed, exe);
		pr_err("install the module (make install or DKMS, see htmtrace(1)), or give --dir DIR");
		goto out;
	}
	if (err) {
		pr_errno(-err, "%s", main_path);
		goto out;
	}
	if (sim && !sim_loaded) {
		err = ko_path(sim_path, sizeof(sim_path), dir, MOD_SIM);
		if (err) {
			pr_errno(-err, "%s", sim_path);
			goto out;
		}
	}

	if (dry_run) {
		if (sim && !sim_loaded)
			printf("insmod %s%s%s\n", sim_path,
			       *sim_opts ? " " : "", sim_opts);
		printf("insmod %s%s%s\n", main_path, *ins_opts ? " " : "",
		       ins_opts);
		ret = EXIT_OK;
		goto out;
	}

	/* htmtrace.ko backend=sim takes the simulator: load that first. */
	if (sim && sim_loaded)
		say_loaded(MOD_SIM, sim_opts);
	if ((!sim || sim_loaded || !load_one(ctx, sim_path, sim_opts)) &&
	    !load_one(ctx, main_path, ins_opts))
		ret = EXIT_OK;
out:
	if (ctx)
		kmod_unref(ctx);
	free(main_opts);
	free(ins_opts);
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
			pr_err("%s is in use: close /dev/htm* and /dev/vpa_dtl, deconfigure them, end perf sessions",
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
	struct kmod_place pl;
	struct kmod_ctx *ctx;
	int sim = 0, opt, ret = EXIT_FAIL;

	while ((opt = next_option(argc, argv, ":h", unload_options, &co)) > 0) {
		switch (opt) {
		case OPT_SIM:
			sim = 1;
			break;
		}
	}
	if (opt)
		return co.status;

	ctx = kmod_context(&pl, NULL);
	if (!ctx)
		return EXIT_FAIL;
	/* htmtrace.ko holds the simulator it took: unload it first. */
	if (!unload_one(ctx, MOD_MAIN) && (!sim || !unload_one(ctx, MOD_SIM)))
		ret = EXIT_OK;
	kmod_unref(ctx);
	return ret;
}
#endif /* HTMTRACE_NO_KMOD */
