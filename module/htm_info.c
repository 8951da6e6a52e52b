// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace: the HTM information queries (HTMTRACE_IOC_CAPS, _SYSMEM,
 * _SYSPROC and their debugfs files): the capabilities of a target and the
 * system's configuration tables, block after block.
 *
 * A walk takes nothing of the channel's but its backend and, at its end,
 * its counters: it runs without the channel's lock, into a page of its
 * own, so that the channel's commands, reads and debugfs files are not
 * held up by its calls (up to HTM_INFO_MAX_CALLS, each of which may wait
 * out a long-busy hypervisor for 10 s).
 */
#define pr_fmt(fmt) "htmtrace: " fmt

#include <linux/errno.h>
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include <asm/byteorder.h>
#include <asm/hvcall.h>

#include "htmtrace.h"
#include "htm_internal.h"

/* Bytes one information block takes, from its header. */
static size_t htm_info_block_len(unsigned int op, const u8 *hdr)
{
	u64 n = be64_to_cpup((const __be64 *)(hdr + HTM_BLOCK_NR_ENTRIES));
	size_t entry = op == HTM_OP_DUMP_SYSMEM_CONF ? HTM_SYSMEM_ENTRY_SIZE :
						       HTM_SYSPROC_ENTRY_SIZE;

	if (n > (PAGE_SIZE - HTM_BLOCK_HDR_SIZE) / entry)
		return 0;
	return HTM_BLOCK_HDR_SIZE + n * entry;
}

/*
 * Bounds on an iterated answer, against a hypervisor that never ends it:
 * bytes, and calls (the largest table public code knows of, a SYSPROC
 * entry per core of a 16-node machine, takes a few hundred even one entry
 * per block).
 */
#define HTM_INFO_MAX		(4UL << 20)
#define HTM_INFO_MAX_CALLS	4096

/* Room for @need bytes in *@out (of *@cap), grown geometrically. */
static int htm_info_grow(void **out, size_t *cap, size_t used, size_t need)
{
	size_t n = max_t(size_t, *cap, PAGE_SIZE);
	void *grown;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	n = min_t(size_t, n, HTM_INFO_MAX);
	/* kvrealloc() changed its arguments in 6.12: done by hand. */
	grown = kvmalloc(n, GFP_KERNEL);
	if (!grown)
		return -ENOMEM;
	if (*out)
		memcpy(grown, *out, used);
	kvfree(*out);
	*out = grown;
	*cap = n;
	return 0;
}

/* Add a walk's counters to the channel's, under the channel's lock. */
static int htm_info_count(struct htm_chan *chan,
			  const struct htm_hv_stats *st)
{
	unsigned int i;

	if (mutex_lock_killable(&chan->lock))
		return -EINTR;
	chan->stats.hcalls += st->hcalls;
	chan->stats.busy_retries += st->busy_retries;
	chan->stats.long_busy_sleeps += st->long_busy_sleeps;
	for (i = 0; i < HTM_HV_NR_RC; i++)
		chan->stats.errors[i] += st->errors[i];
	mutex_unlock(&chan->lock);
	return 0;
}

/**
 * htm_chan_info() - fetch the capabilities or a configuration dump
 * @chan: channel whose backend and counters are used (its lock is not held
 *	across the walk: it is taken once, at the end, to count the calls)
 * @op: HTM_OP_CAPABILITIES, HTM_OP_DUMP_SYSMEM_CONF or
 *	HTM_OP_DUMP_SYSPROC_CONF
 * @t: target the query is about
 * @data: receives a kvmalloc()ed copy of the blocks, back to back
 * @len: receives the length of @data
 *
 * The capabilities are one block of HTM_CAPS_SIZE bytes, asked for with
 * that length (htmdump.c). The configuration dumps are asked for block
 * after block, following the iterator at +0x08 of each block until it
 * reads 0 (htm-perf.c: "last batch") or -1 (htmdump.c), or until the
 * hypervisor answers H_NOT_AVAILABLE after a first block (htm-perf.c:
 * "normal end of stream"), or H_P6 or H_PARAMETER: after a first block,
 * the iterator is the one parameter that changed, so the hypervisor says
 * it points past the table, as the last block's iterator may (htmdump.c
 * hands each block to its reader as it comes: the earlier blocks are
 * kept, not lost to the answer after them). H_PARTIAL is success, as for
 * every op. A block with no entry ends the iteration too (kept: its header
 * counts the table), whatever its iterator says. At most
 * HTM_INFO_MAX_CALLS blocks and HTM_INFO_MAX bytes; a fatal signal ends
 * the walk, and a signal a long-busy wait.
 *
 * Return: 0, -ENOMEM, -EIO if the hypervisor's blocks do not add up or
 * never end, -ENODATA if it has no such data (H_NOT_AVAILABLE for the
 * first block), -EINTR, -ERESTARTSYS if a signal came while the
 * hypervisor was long busy, or the hypervisor's errno (for the first
 * block, or a later one answered other than the ends above).
 */
int htm_chan_info(struct htm_chan *chan, unsigned int op,
		  const struct htm_target *t, void **data, size_t *len)
{
	struct htm_hv_stats st = {};
	void *out = NULL;
	size_t total = 0, cap = 0, blen;
	size_t room = op == HTM_OP_CAPABILITIES ? HTM_CAPS_SIZE : PAGE_SIZE;
	unsigned int calls = 0;
	u64 next = 0, n = 0;
	long hrc;
	u8 *hdr;
	int ret;

	/* The hypervisor writes a page: the walk's own, page aligned. */
	hdr = (u8 *)__get_free_page(GFP_KERNEL);
	if (!hdr)
		return -ENOMEM;
	do {
		if (calls++ == HTM_INFO_MAX_CALLS) {
			ret = -EIO;
			break;
		}
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		memset(hdr, 0, PAGE_SIZE);
		hrc = H_SUCCESS;
		ret = htm_hv_call(chan->hv, &st, t, 0, op, virt_to_phys(hdr),
				  room, next, &hrc);
		if (ret && total && (ret == -ENODATA || hrc == H_P6 ||
				     hrc == H_PARAMETER)) {
			ret = 0;	/* the end of the iteration */
			break;
		}
		if (ret)
			break;
		if (op == HTM_OP_CAPABILITIES) {
			blen = HTM_CAPS_SIZE;
			next = 0;
		} else {
			blen = htm_info_block_len(op, hdr);
			n = be64_to_cpup((__be64 *)(hdr + HTM_BLOCK_NR_ENTRIES));
			next = be64_to_cpup((__be64 *)(hdr + HTM_BLOCK_NEXT));
		}
		if (!blen || total + blen > HTM_INFO_MAX) {
			ret = -EIO;
			break;
		}
		ret = htm_info_grow(&out, &cap, total, total + blen);
		if (ret)
			break;
		memcpy(out + total, hdr, blen);
		total += blen;
	} while (next && next != U64_MAX &&
		 (op == HTM_OP_CAPABILITIES || n));
	free_page((unsigned long)hdr);
	/* Counted whatever the walk's outcome, unless its caller is killed. */
	if (htm_info_count(chan, &st))
		ret = -EINTR;

	if (ret) {
		kvfree(out);
		return ret;
	}
	*data = out;
	*len = total;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(htm_chan_info);
