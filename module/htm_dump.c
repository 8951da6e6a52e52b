// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace: the HTM dump engine, the requests the channels and the htm PMU
 * make of the hypervisor for a holder of a target: STOP, and DUMP_DATA of
 * whole pages at page-aligned offsets, in transfers that shrink where the
 * hypervisor refuses a length. No lock of its own: the caller serialises
 * its requests (a channel's lock, or the PMU's event on its CPU), and says
 * how to wait (struct htm_caller).
 */
#define pr_fmt(fmt) "htmtrace: " fmt

#include <linux/errno.h>
#include <linux/io.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include <asm/hvcall.h>

#include "htmtrace.h"
#include "htm_internal.h"

/**
 * htm_dump_plan() - the DUMP_DATA to ask for a read at @pos
 * @pos: byte offset the reader asks for
 * @xfer: bytes per DUMP_DATA, a multiple of PAGE_SIZE
 * @hw_size: size of the HTM buffer, 0 if unknown
 * @start: receives the chunk's offset: @pos rounded down to @xfer
 * @len: receives the length to ask for: @xfer, or, where the buffer ends
 *	sooner, the whole pages up to its end (no public caller asks for less
 *	than a page)
 *
 * Return: the bytes of the chunk that are trace, from @start: @len, or, with
 * a known @hw_size, up to it; 0 if @pos is at or past @hw_size (nothing to
 * ask for).
 */
size_t htm_dump_plan(u64 pos, size_t xfer, u64 hw_size, u64 *start,
		     size_t *len)
{
	*start = pos - pos % xfer;
	*len = xfer;
	if (!hw_size)
		return xfer;
	if (pos >= hw_size)
		return 0;
	*len = min_t(u64, xfer, round_up(hw_size - *start, PAGE_SIZE));
	return min_t(u64, *len, hw_size - *start);
}
EXPORT_SYMBOL_IF_KUNIT(htm_dump_plan);

/**
 * htm_caller_call() - issue one H_HTM request for a holder of a target
 * @c: who asks, and how
 * @op: HTM_OP_*
 * @p1: first operation parameter
 * @p2: second operation parameter
 * @p3: third operation parameter
 * @hrc: if not NULL, receives the last hypervisor status
 *
 * Return: see htm_hv_call_policy(), and htm_hv_call_yield() with @c->yield.
 */
int htm_caller_call(const struct htm_caller *c, unsigned int op,
		    unsigned long p1, unsigned long p2, unsigned long p3,
		    long *hrc)
{
	if (c->yield)
		return htm_hv_call_yield(c->hv, c->yield, c->stats, c->target,
					 c->flags, op, p1, p2, p3, hrc);
	return htm_hv_call_policy(c->hv, c->policy, c->stats, c->target,
				  c->flags, op, p1, p2, p3, hrc);
}

/**
 * htm_status_size() - the HTM buffer size a STATUS block gives
 * @hdr: the STATUS block's header
 * @type: the HTM type of the target STATUS was asked about
 * @size: receives the size in bytes
 *
 * Public sources define the size byte (+0x01) for nest and core only
 * (htmdump.c's CurrentNestHtmBufferSizeInPowerOf2 and
 * CurrentCoreHtmBufferSizeInPowerOf2; htm-perf.c reads it for the types it
 * knows): for llat and global it is not read at all, whatever it holds.
 *
 * Return: 0, or -ENODATA if the target's type has no public size byte, or
 * the byte is no size: smaller than one record, or beyond what loff_t can
 * address.
 */
int htm_status_size(const u8 *hdr, u8 type, u64 *size)
{
	u8 log2_size = hdr[HTM_STATUS_LOG2_SIZE];

	if (type != HTMTRACE_TYPE_NEST && type != HTMTRACE_TYPE_CORE)
		return -ENODATA;
	if (log2_size < ilog2(HTM_RECORD_SIZE) || log2_size > HTM_LOG2_SIZE_MAX)
		return -ENODATA;
	*size = 1ULL << log2_size;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(htm_status_size);

/**
 * htm_xfer_shrink() - shrink the transfer size after a refused DUMP_DATA
 * @rc: the hypervisor's status for the DUMP_DATA
 * @max_xfer: most bytes one DUMP_DATA asks for, a multiple of PAGE_SIZE;
 *	halved (in whole pages) if the hypervisor refused a parameter that
 *	the length may be behind: the length (H_P5), the destination it spans
 *	(H_P4), or one it does not name (H_PARAMETER). No public source says
 *	which PowerVM answers for a length longer than it moves at once
 *	(htmdump asks a page, htm-perf.c half the AUX area at most).
 *
 * Return: true if @max_xfer shrank and the request may be repeated.
 */
bool htm_xfer_shrink(long rc, size_t *max_xfer)
{
	if ((rc != H_P5 && rc != H_P4 && rc != H_PARAMETER) ||
	    *max_xfer <= PAGE_SIZE)
		return false;
	*max_xfer = max_t(size_t, PAGE_SIZE, round_down(*max_xfer / 2, PAGE_SIZE));
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(htm_xfer_shrink);

/**
 * htm_trace_stop() - STOP a trace
 * @c: who asks, and how
 * @refused: set if the hypervisor answered H_STATE, left as it is otherwise
 *
 * H_STATE is an error as on every op (htmdump.c: "HTM state is not valid";
 * htm-perf.c: -EIO), and the trace is not to be taken as stopped: the
 * hypervisor says the target is in no state to stop, and it may still be
 * writing the buffer. As htm-perf.c ("H_HTM_OP_STOP failed — cannot dump a
 * live buffer"), no DUMP_DATA follows a STOP that failed.
 *
 * Return: 0 once the trace is stopped, else the errno.
 */
int htm_trace_stop(const struct htm_caller *c, bool *refused)
{
	long rc = H_SUCCESS;
	int ret;

	ret = htm_caller_call(c, HTM_OP_STOP, 0, 0, 0, &rc);
	if (ret && rc == H_STATE)
		*refused = true;
	return ret;
}

/**
 * htm_dump_chunk() - DUMP_DATA the chunk of a trace that holds @pos
 * @c: who asks, and how
 * @ck: the request: @ck->buf, @ck->cap, @ck->base and @ck->end in,
 *	@ck->start and @ck->len out
 * @pos: trace offset the chunk holds, at or after @ck->base and before
 *	@ck->end
 * @max_xfer: most bytes one DUMP_DATA asks for; where the hypervisor says
 *	a length is more than it moves at once (H_P5), the transfer is
 *	halved, in whole pages, written back here, and the request made again
 *
 * The chunk is what htm_dump_plan() plans for @pos, counted from @ck->base,
 * with transfers of *@max_xfer bytes at most (and @ck->cap, unless 0): a
 * page-aligned offset and whole pages, as every public caller asks. Where
 * the end is unknown (@ck->end 0: STATUS gave no size), one page, as
 * htmdump.c asks: a longer request could reach past the buffer's end, which
 * the hypervisor may answer as success, writing only the part inside (the
 * rest would read as trace), or as H_NOT_AVAILABLE for the whole request
 * (the data inside would be lost); the first page past the end is
 * H_NOT_AVAILABLE either way. H_HTM
 * tells no byte count: the chunk is zeroed before each request, so that
 * what the hypervisor does not write (H_PARTIAL, a short transfer) reads as
 * zeros, never as older data or kernel memory.
 *
 * Return: 0; -ENODATA if the hypervisor answers that the data ends (at
 * @ck->start or before), or if @pos is not before @ck->end (nothing is
 * asked); another errno.
 */
int htm_dump_chunk(const struct htm_caller *c, struct htm_chunk *ck, u64 pos,
		   size_t *max_xfer)
{
	size_t xfer, len;
	long rc;
	int ret;

	for (;;) {
		xfer = ck->cap ? min(ck->cap, *max_xfer) : *max_xfer;
		if (!ck->end)
			xfer = min_t(size_t, xfer, PAGE_SIZE);
		ck->len = htm_dump_plan(pos - ck->base, xfer,
					ck->end ? ck->end - ck->base : 0,
					&ck->start, &len);
		ck->start += ck->base;
		if (!ck->len)
			return -ENODATA;
		memset(ck->buf, 0, len);
		ret = htm_caller_call(c, HTM_OP_DUMP_DATA, virt_to_phys(ck->buf),
				      len, ck->start, &rc);
		if (!htm_xfer_shrink(rc, &xfer))
			return ret;
		*max_xfer = xfer;
	}
}
EXPORT_SYMBOL_IF_KUNIT(htm_dump_chunk);
