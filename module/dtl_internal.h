/* SPDX-License-Identifier: GPL-2.0 */
/*
 * htmtrace: what the dispatch trace log's files (dtl_*.c) share among
 * themselves; the rest of the driver uses htmtrace.h.
 */
#ifndef HTMTRACE_DTL_INTERNAL_H
#define HTMTRACE_DTL_INTERNAL_H

#include "htmtrace.h"

/* dtl_ring.c */
unsigned long htm_dtl_ring_copy(const struct htm_dtl_ring *ring,
				char __user *ubuf, u32 len);

/* dtl_rec.c: but for the first, callers hold the session's ring lock */
void htm_dtl_rec_init(struct htmtrace_dtl_rec *hdr, u16 type, u16 len, u32 cpu);
bool htm_dtl_put(struct htm_dtl *dtl, struct htm_dtl_cpu *c, const void *rec);
bool htm_dtl_flush_cpu(struct htm_dtl *dtl, struct htm_dtl_cpu *c);
bool htm_dtl_flush(struct htm_dtl *dtl, struct htm_dtl_cpu *only);
bool htm_dtl_cpu_pending(const struct htm_dtl_cpu *c);

/* dtl_cpu.c */
void htm_dtl_cpu_setup(struct htm_dtl *dtl, struct htm_dtl_cpu *c,
		       unsigned int cpu, u8 mask);
long htm_dtl_cpu_begin(void *arg);
void htm_dtl_cpu_poll(struct htm_dtl *dtl, struct htm_dtl_cpu *c);
void htm_dtl_cpu_end(struct htm_dtl_cpu *c, unsigned int why);
void htm_dtl_cpu_flush_ipi(void *arg);

/* dtl_session.c */
void htm_dtl_free(struct htm_dtl *dtl);

#endif /* HTMTRACE_DTL_INTERNAL_H */
