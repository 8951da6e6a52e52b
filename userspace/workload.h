/* SPDX-License-Identifier: GPL-2.0 */
/*
 * htmtrace: the workload, the duration and Ctrl-C of the captures
 * (workload.c).
 */
#ifndef _HTMTRACE_WORKLOAD_H
#define _HTMTRACE_WORKLOAD_H

#include <signal.h>
#include <stdio.h>
#include <sys/types.h>

/* workload.c: the workload, the duration and Ctrl-C of the captures. */
extern volatile sig_atomic_t interrupted;

struct workload {
	pid_t pid;
	int go_fd;	/* write end: one byte lets the child exec */
	int err_fd;	/* read end: errno of a failed exec, or EOF */
	int status;	/* wait status once reaped */
	int reaped;
	char **argv;	/* the command, or NULL for none */
	int have_secs;	/* --duration given: run for secs */
	double secs;
	int stdout_to_stderr;	/* our stdout carries data: not the child's */
	long long start_ns, stop_ns;	/* CLOCK_MONOTONIC: what was traced */
};

#define WORKLOAD_INIT	{ .go_fd = -1, .err_fd = -1 }

void capture_sigset(sigset_t *set, int chld);
int catch_signals(int chld);
void release_signals(void);
int workload_duration(struct workload *wl, const char *arg);
int workload_operands(struct workload *wl, int argc, char **argv);
int workload_prepare(struct workload *wl);
int workload_go(struct workload *wl);
int workload_reap(struct workload *wl);
int workload_poll(struct workload *wl);
void sleep_for(double secs);
int wait_for_signal(void);
void workload_mark(struct workload *wl, int stop);
void print_workload(FILE *f, const struct workload *wl);
int workload_exit(const struct workload *wl, int ret);

#endif /* _HTMTRACE_WORKLOAD_H */
