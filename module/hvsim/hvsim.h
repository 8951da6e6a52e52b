/* SPDX-License-Identifier: GPL-2.0 */
/*
 * htmtrace_hvsim: declarations shared by the simulator's files.
 */
#ifndef _HVSIM_H
#define _HVSIM_H

#include <linux/types.h>

struct dentry;

/* dtl.c: the simulated dispatch trace log */
long hvsim_dtl_register(int cpu, phys_addr_t buf);
long hvsim_dtl_unregister(int cpu);
u64 hvsim_dtl_index(int cpu);
u8 hvsim_dtl_mask(int cpu);
void hvsim_dtl_set_mask(int cpu, u8 mask);
void hvsim_dtl_reset(void);
int hvsim_dtl_init(struct dentry *dir);
void hvsim_dtl_exit(void);

#endif /* _HVSIM_H */
