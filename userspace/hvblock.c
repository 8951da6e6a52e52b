// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace: hypervisor information blocks.
 *
 * HTMTRACE_IOC_SYSMEM and HTMTRACE_IOC_SYSPROC store blocks back to back,
 * each as the hypervisor wrote it: a 32-byte header (big-endian u64
 * "next entry" iterator at +0x08, big-endian u64 entry count at +0x10) and
 * then the entries. Pure functions only.
 */
#include <errno.h>

#include "hvblock.h"

__u64 get_be64(const unsigned char *p)
{
	__u64 v = 0;
	unsigned int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/**
 * hvblock_parse() - decode the header of the block at an offset
 * @buf: the blocks
 * @len: bytes in @buf
 * @off: where the block starts
 * @entry_size: bytes per entry (HTMTRACE_SYSMEM_ENTRY_SIZE, HTMTRACE_SYSPROC_ENTRY_SIZE)
 * @blk: out: the block
 *
 * Return: 0, or -EBADMSG if the header or the entries it counts run past
 * the end of @buf.
 */
int hvblock_parse(const unsigned char *buf, size_t len, size_t off,
		  size_t entry_size, struct hvblock *blk)
{
	size_t room;

	if (off > len || len - off < HTMTRACE_BLOCK_HDR_SIZE)
		return -EBADMSG;
	blk->offset = off;
	blk->next = get_be64(buf + off + HTMTRACE_BLOCK_NEXT);
	blk->nr_entries = get_be64(buf + off + HTMTRACE_BLOCK_NR_ENTRIES);
	room = len - off - HTMTRACE_BLOCK_HDR_SIZE;
	if (blk->nr_entries > room / entry_size)
		return -EBADMSG;
	blk->size = HTMTRACE_BLOCK_HDR_SIZE + blk->nr_entries * entry_size;
	return 0;
}

/**
 * count_blocks() - walk a sequence of blocks
 * @buf: the blocks, back to back
 * @len: bytes in @buf
 * @entry_size: bytes per entry
 * @nr_blocks: out: blocks found
 * @nr_entries: out: entries they count
 * @bad_off: out: on error, the offset of the malformed block
 *
 * Return: 0 if the blocks fill @buf exactly, -EBADMSG otherwise.
 */
int count_blocks(const unsigned char *buf, size_t len, size_t entry_size,
		 __u64 *nr_blocks, __u64 *nr_entries, size_t *bad_off)
{
	struct hvblock blk;
	size_t off = 0;
	int err;

	*nr_blocks = 0;
	*nr_entries = 0;
	while (off < len) {
		err = hvblock_parse(buf, len, off, entry_size, &blk);
		if (err) {
			*bad_off = off;
			return err;
		}
		(*nr_blocks)++;
		*nr_entries += blk.nr_entries;
		off += blk.size;
	}
	return 0;
}
