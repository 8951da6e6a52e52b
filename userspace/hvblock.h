/* SPDX-License-Identifier: GPL-2.0 */
/*
 * htmtrace: hypervisor information blocks (hvblock.c), laid out as
 * uapi/linux/htmtrace.h says (HTMTRACE_BLOCK_*). Pure: no I/O.
 */
#ifndef _HTMTRACE_HVBLOCK_H
#define _HTMTRACE_HVBLOCK_H

#include <stddef.h>
#include <linux/types.h>
#include <linux/htmtrace.h>

/* hvblock.c: hypervisor information blocks. */
struct hvblock {
	size_t offset;		/* of the block in the buffer */
	size_t size;		/* header and entries */
	__u64 next;		/* iterator at +0x08 */
	__u64 nr_entries;	/* entry count at +0x10 */
};

__u64 get_be64(const unsigned char *p);
int hvblock_parse(const unsigned char *buf, size_t len, size_t off,
		  size_t entry_size, struct hvblock *blk);
int count_blocks(const unsigned char *buf, size_t len, size_t entry_size,
		 __u64 *nr_blocks, __u64 *nr_entries, size_t *bad_off);

#endif /* _HTMTRACE_HVBLOCK_H */
