// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace: the option loop of every command and the options they share
 * (the target, the channel, a FILE operand).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "opts.h"
#include "util.h"

/* Handle -t, -n, -p or -c. Returns EXIT_OK or, after a message, EXIT_USAGE. */
static int target_opt(struct target_arg *ta, int opt, const char *arg)
{
	const char *name;
	__u32 *field;
	unsigned int bit;
	int err;

	switch (opt) {
	case 't':
		err = parse_type(arg, &ta->t.type);
		if (err == -ERANGE)
			return usage_err("HTM type '%s' out of range 0..255",
					 arg);
		if (err)
			return usage_err("unknown HTM type '%s': expected nest, core, llat, global or a number 0..255",
					 arg);
		ta->given |= TARGET_TYPE;
		return EXIT_OK;
	case 'n':
		name = "node";
		field = &ta->t.node;
		bit = TARGET_NODE;
		break;
	case 'p':
		name = "chip";
		field = &ta->t.chip;
		bit = TARGET_CHIP;
		break;
	case 'c':
		name = "core";
		field = &ta->t.core;
		bit = TARGET_CORE;
		break;
	default:
		return usage_err("internal error: option -%c", opt);
	}
	err = parse_index(arg, field);
	if (err == -ERANGE)
		return usage_err("%s index '%s' out of range 0..%u",
				 name, arg, HTMTRACE_INDEX_MAX);
	if (err)
		return usage_err("%s index '%s' is not a number", name, arg);
	ta->given |= bit;
	return EXIT_OK;
}

/* Check that the fields in @need were given. Returns EXIT_OK or EXIT_USAGE. */
int target_require(const struct target_arg *ta, unsigned int need)
{
	static const struct {
		unsigned int bit;
		const char *opt;
	} fields[] = {
		{ TARGET_TYPE, "-t TYPE" },
		{ TARGET_NODE, "-n NODE" },
		{ TARGET_CHIP, "-p CHIP" },
		{ TARGET_CORE, "-c CORE" },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fields); i++)
		if ((need & fields[i].bit) && !(ta->given & fields[i].bit))
			return usage_err("missing target: %s is required",
					 fields[i].opt);
	return EXIT_OK;
}

/*
 * The one FILE operand of a command (at optind), read whole into *@bufp.
 * Returns EXIT_OK, or EXIT_USAGE or EXIT_FAIL after a message.
 */
int read_file_operand(int argc, char **argv, const char **file,
		      unsigned char **bufp, size_t *lenp)
{
	int err;

	if (optind == argc)
		return usage_err("missing FILE");
	if (optind + 1 < argc)
		return usage_err("unexpected argument '%s'", argv[optind + 1]);
	*file = argv[optind];
	err = read_file(*file, bufp, lenp);
	if (err) {
		pr_errno(-err, "read %s", *file);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* Handle -d. Returns EXIT_OK or EXIT_USAGE. */
int device_opt(char *buf, size_t len, const char *arg, int is_path)
{
	int err;

	if (!is_path)
		err = device_path(buf, len, arg);
	else if (!*arg)
		err = -EINVAL;
	else if ((size_t)snprintf(buf, len, "%s", arg) >= len)
		err = -ENAMETOOLONG;
	else
		err = 0;

	if (err == -ERANGE)
		return usage_err("channel number '%s' out of range", arg);
	if (err)
		return usage_err("bad device '%s'", arg);
	return EXIT_OK;
}

/* Report what getopt_long() did not accept. Returns EXIT_USAGE. */
static int bad_option(char **argv, int opt)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "?";

	if (opt == ':')
		return usage_err("option '%s' needs an argument", arg);
	/* --NAME=VALUE for a NAME without argument: optopt is NAME's value. */
	if (optopt && !strncmp(arg, "--", 2))
		return usage_err("option '%.*s' takes no argument",
				 (int)strcspn(arg, "="), arg);
	if (optopt && optopt != '?')
		return usage_err("unknown option '-%c'", optopt);
	return usage_err("unknown option '%s'", arg);
}

static int opts_stop(struct cmd_opts *co, int status)
{
	co->status = status;
	return OPTS_STOP;
}

/**
 * next_option() - the option loop of every command
 * @argc: number of the command's arguments
 * @argv: the command's arguments, the command name first
 * @optstring: as for getopt_long(), starting with ':' (or "+:")
 * @longopts: as for getopt_long()
 * @co: the shared options, zero-initialised by the caller
 *
 * Takes -t, -n, -p, -c and -d into @co, prints the help for -h and reports
 * what getopt_long() refuses; at the end of the options it refuses operands
 * unless @co->operands. Every other option is the command's own: it is
 * returned, with optarg set, for the command to handle.
 *
 * Return: the command's next own option; OPTS_END when the options are done
 * (optind indexes the first operand); OPTS_STOP when the command must end
 * with @co->status: EXIT_OK after the help, EXIT_USAGE after a message.
 */
int next_option(int argc, char **argv, const char *optstring,
		const struct option *longopts, struct cmd_opts *co)
{
	int opt;

	if (!co->dev[0])
		snprintf(co->dev, sizeof(co->dev), "%s", DEFAULT_DEVICE);
	while ((opt = getopt_long(argc, argv, optstring, longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 't':
		case 'n':
		case 'p':
		case 'c':
			if (co->own_targets)
				return opt;
			if (target_opt(&co->ta, opt, optarg))
				return opts_stop(co, EXIT_USAGE);
			break;
		case 'd':
			if (co->own_targets)
				return opt;
			if (device_opt(co->dev, sizeof(co->dev), optarg,
				       co->dev_is_path))
				return opts_stop(co, EXIT_USAGE);
			co->dev_given = 1;
			break;
		case 'h':
			if (cmd_help)
				fputs(cmd_help, stdout);
			fputs("  -h, --help            show this help\n", stdout);
			return opts_stop(co, EXIT_OK);
		case ':':
		case '?':
			return opts_stop(co, bad_option(argv, opt));
		default:
			return opt;
		}
	}
	if (optind < argc && !co->operands)
		return opts_stop(co, usage_err("unexpected argument '%s'",
					       argv[optind]));
	return OPTS_END;
}
