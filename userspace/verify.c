// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace: check a dump of the simulator, byte for byte.
 *
 * The simulator's records are a pure function of (target, seq) and record
 * seq lives in slot seq % nslots (module/hvsim/hvsim_record.h). A dump of
 * nslots records after "written" records is therefore fully determined by
 * (target, nslots, written). nslots is the dump size, or the buffer size the
 * caller gives for a dump that ends early; target and written are
 * inferred from the intact records, those equal to the record they claim to
 * be, so that one damaged record cannot change what the others are expected
 * to hold. Pure functions only.
 */
#include <stdint.h>
#include <string.h>

#include "htmtrace.h"
#include "../module/hvsim/hvsim_record.h"

/* Fill @rec with what slot @slot holds after @written records. */
void sim_slot_fill(unsigned char *rec, __u64 target, __u64 slot,
		   __u64 nslots, __u64 written)
{
	__u64 seq;

	if (hvsim_slot_seq(slot, nslots, written, &seq))
		hvsim_record_fill(rec, target, seq);
	else
		memset(rec, 0, HVSIM_RECORD_SIZE);
}

/*
 * Is @rec the intact record it claims to be, in the slot it belongs to?
 * Returns its target and sequence number if so.
 */
static int record_intact(const unsigned char *rec, __u64 slot, __u64 nslots,
			 __u64 *target, __u64 *seq)
{
	if (hvsim_record_get(rec, 0) != HVSIM_RECORD_MAGIC)
		return 0;
	*target = hvsim_record_get(rec, 1);
	*seq = hvsim_record_get(rec, 2);
	/* seq + 1 must not overflow: it is the count written. */
	if (*seq == UINT64_MAX || *seq % nslots != slot)
		return 0;
	return hvsim_record_equal(rec, *target, *seq);
}

/*
 * Pass 1: the target of the records and how many were written, from the
 * @nrec whole records the dump holds.
 */
static void infer_written(const unsigned char *buf, __u64 nrec,
			  const struct target_arg *filter,
			  struct verify_result *res)
{
	__u64 slot, target, seq;
	int have_seq = 0;

	for (slot = 0; slot < nrec; slot++) {
		const unsigned char *rec = buf + slot * HVSIM_RECORD_SIZE;

		if (!record_intact(rec, slot, res->nslots, &target, &seq))
			continue;
		if (!res->have_target) {
			if (!target_matches(target, filter))
				continue;
			res->target = target;
			res->have_target = 1;
		} else if (target != res->target) {
			continue;
		}
		if (!have_seq || seq >= res->written) {
			res->written = seq + 1;
			have_seq = 1;
		}
	}
}

/*
 * The record a dump cut short ends in was not used to infer the count
 * written: it may hold the record after the last one seen, if its slot is
 * where that one goes (one more lap would have overwritten records the
 * dump holds), or, if the dump holds no whole record, any record of its
 * slot (too short to tell which: its magic). The count written then
 * grows to include it.
 */
static int tail_is_next(const unsigned char *rec, size_t len, __u64 slot,
			const struct target_arg *filter,
			struct verify_result *res)
{
	unsigned char expect[HVSIM_RECORD_SIZE];
	__u64 target = res->target, seq = res->written;

	if (!res->written) {
		if (len < 3 * sizeof(__u64)) {
			hvsim_record_fill(expect, 0, slot);
			return !memcmp(rec, expect,
				       len < sizeof(__u64) ? len :
				       sizeof(__u64));
		}
		target = hvsim_record_get(rec, 1);
		seq = hvsim_record_get(rec, 2);
		if ((res->have_target && target != res->target) ||
		    !target_matches(target, filter))
			return 0;
	}
	if (seq == UINT64_MAX || seq % res->nslots != slot)
		return 0;
	hvsim_record_fill(expect, target, seq);
	if (memcmp(rec, expect, len))
		return 0;
	res->target = target;
	res->have_target = 1;
	res->written = seq + 1;
	res->wrapped = res->written > res->nslots;
	return 1;
}

/**
 * verify_dump() - check a simulator dump
 * @buf: the dump
 * @size: its size in bytes
 * @filter: target fields the records must have, or NULL
 * @buffer_size: the size of the HTM buffer dumped, or 0 if the dump is the
 *	whole buffer. With it, the dump may end before the buffer does (a
 *	trace whose data ended early, a dump cut short, even in a record):
 *	what it holds is checked against the buffer's slots.
 * @res: out: counts, the inferred target and written count, and the first
 *	wrong slot
 *
 * Every slot must hold exactly the record the simulator would have left
 * there, or zeros if it was never written.
 */
void verify_dump(const unsigned char *buf, size_t size,
		 const struct target_arg *filter, __u64 buffer_size,
		 struct verify_result *res)
{
	unsigned char expect[HVSIM_RECORD_SIZE];
	__u64 slot, nrec;
	size_t len, tail;
	unsigned int i;

	memset(res, 0, sizeof(*res));
	if (!size) {
		res->status = VERIFY_EMPTY;
		return;
	}
	tail = size % HVSIM_RECORD_SIZE;
	if (buffer_size && (buffer_size % HVSIM_RECORD_SIZE ||
			    size > buffer_size)) {
		res->status = VERIFY_TOO_BIG;
		return;
	}
	if (tail && !buffer_size) {
		res->status = VERIFY_PARTIAL;
		res->bad_offset = size - tail;
		res->bad_byte = res->bad_offset;
		return;
	}
	res->nrecords = size / HVSIM_RECORD_SIZE;
	res->tail = tail;
	res->nslots = buffer_size ? buffer_size / HVSIM_RECORD_SIZE :
				    res->nrecords;
	if (filter && filter->given == TARGET_ALL) {
		res->target = target_word(&filter->t);
		res->have_target = 1;
	}

	infer_written(buf, res->nrecords, filter, res);
	res->wrapped = res->written > res->nslots;

	nrec = res->nrecords + (tail ? 1 : 0);
	for (slot = 0; slot < nrec; slot++) {
		const unsigned char *rec = buf + slot * HVSIM_RECORD_SIZE;

		/* The last record of a dump cut short: its leading bytes. */
		len = slot < res->nrecords ? HVSIM_RECORD_SIZE : tail;
		sim_slot_fill(expect, res->target, slot, res->nslots,
			      res->written);
		if (len < HVSIM_RECORD_SIZE && memcmp(rec, expect, len) &&
		    tail_is_next(rec, len, slot, filter, res))
			continue;
		if (!memcmp(rec, expect, len)) {
			if (len < HVSIM_RECORD_SIZE)
				continue;
			if (slot < res->written)
				res->valid++;
			else
				res->zero++;
			continue;
		}
		if (res->bad++)
			continue;
		for (i = 0; rec[i] == expect[i]; i++)
			;
		res->bad_offset = slot * HVSIM_RECORD_SIZE;
		res->bad_byte = res->bad_offset + i;
		res->bad_expect_zero = !hvsim_slot_seq(slot, res->nslots,
						       res->written,
						       &res->bad_expect_seq);
	}
	res->status = res->bad ? VERIFY_MISMATCH : VERIFY_OK;
}
