/* SPDX-License-Identifier: GPL-2.0 */
/*
 * htmtrace: the commands, each in a cmd_*.c or record.c file; htmtrace.c
 * dispatches to them.
 */
#ifndef _HTMTRACE_COMMANDS_H
#define _HTMTRACE_COMMANDS_H

/*
 * The tool's version, as dkms.conf's PACKAGE_VERSION and the module's
 * MODULE_VERSION (module/main.c); also in dtl record's file header.
 */
#define TOOL_VERSION		"0.1"

/* The commands: each returns an exit status. */
int cmd_caps(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_setup(int argc, char **argv);
int cmd_configure(int argc, char **argv);
int cmd_start(int argc, char **argv);
int cmd_stop(int argc, char **argv);
int cmd_deconfigure(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_sysmem(int argc, char **argv);
int cmd_sysproc(int argc, char **argv);
int cmd_translation(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_load(int argc, char **argv);
int cmd_unload(int argc, char **argv);
int cmd_dtl_record(int argc, char **argv);
int cmd_dtl_report(int argc, char **argv);

#endif /* _HTMTRACE_COMMANDS_H */
