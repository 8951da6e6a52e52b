// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace: the dispatch trace log session's ring of stream records.
 *
 * A ring per CPU: one producer (the CPU's capture, under the CPU's lock) and
 * one reader (the session's, under its read lock, moving the tail under the
 * CPU's lock); records are whole, 8-byte aligned, and their headers never
 * straddle the end of the ring.
 */
#define pr_fmt(fmt) "htmtrace: " fmt

#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <kunit/visibility.h>

#include "htmtrace.h"
#include "dtl_internal.h"

/* a CPU's ring of records */

/**
 * dtl_ring_put() - append a record
 * @ring: ring, its lock held
 * @rec: the record; its header's length says how long it is
 *
 * Return: true, or false if it does not fit (nothing is written).
 */
bool dtl_ring_put(struct dtl_ring *ring, const void *rec)
{
	u32 len = ((const struct htmtrace_dtl_rec *)rec)->len;
	u32 off = ring->head & (ring->size - 1);
	u32 part = min(len, ring->size - off);

	if (ring->size - (ring->head - ring->tail) < len)
		return false;
	memcpy(ring->buf + off, rec, part);
	memcpy(ring->buf, rec + part, len - part);
	/* The reader looks at the head without the lock (a hint only). */
	WRITE_ONCE(ring->head, ring->head + len);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(dtl_ring_put);

/**
 * dtl_ring_whole() - bytes of the whole records that fit in @max
 * @ring: ring, its consumer's lock held (the tail is the consumer's)
 * @head: a head read under the CPU's lock: the records before it are
 *	whole and stay as they are (the producer writes only past the head),
 *	so the walk needs no lock, and takes none (the CPU's lock is raw, and
 *	the walk may cover the whole ring)
 * @max: room the reader has
 *
 * Return: bytes from the tail, a sum of whole records' lengths.
 */
u32 dtl_ring_whole(const struct dtl_ring *ring, u64 head, size_t max)
{
	u64 pos = ring->tail;
	u32 len, n = 0;

	while (pos < head) {
		const struct htmtrace_dtl_rec *rec =
			(const void *)(ring->buf + (pos & (ring->size - 1)));

		/* Headers are 8-byte aligned and never straddle the end. */
		len = rec->len;
		if (n + len > max)
			break;
		n += len;
		pos += len;
	}
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(dtl_ring_whole);

/*
 * Copy @len bytes from the tail to the user. Only the consumer moves the
 * tail, and the producer writes only past the head, so the bytes are stable
 * without the CPU's lock. @ring may be the consumer's copy of the ring (see
 * dtl_read_claim()). Return: bytes not copied.
 */
unsigned long dtl_ring_copy(const struct dtl_ring *ring,
			    char __user *ubuf, u32 len)
{
	u32 off = ring->tail & (ring->size - 1);
	u32 part = min(len, ring->size - off);
	unsigned long left;

	left = copy_to_user(ubuf, ring->buf + off, part);
	if (left)
		return left + len - part;
	return copy_to_user(ubuf + part, ring->buf, len - part);
}
