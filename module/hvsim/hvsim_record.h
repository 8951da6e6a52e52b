/* SPDX-License-Identifier: GPL-2.0 */
/*
 * htmtrace_hvsim: the content of simulated HTM trace records.
 *
 * Shared by the simulator (which writes records) and by the checkers in the
 * htmtrace tool and the tests (which verify a dump byte for byte), so it
 * builds both in the kernel and in userspace and depends on <linux/types.h>
 * only.
 *
 * A record is 128 bytes: sixteen big-endian u64 words.
 *   word 0   HVSIM_RECORD_MAGIC
 *   word 1   the target word: node << 48 | chip << 32 | core << 16 | type
 *   word 2   the sequence number: records are numbered from 0 at START
 *   word 3.. hvsim_record_word(target, seq, i)
 * Record seq is stored in slot seq % nslots of a buffer of nslots records, so
 * after "written" records slot i holds the newest seq < written that is
 * congruent to i, and slots never written hold zeros.
 */
#ifndef _HVSIM_RECORD_H
#define _HVSIM_RECORD_H

#include <linux/types.h>

#define HVSIM_RECORD_SIZE	128
#define HVSIM_RECORD_WORDS	(HVSIM_RECORD_SIZE / 8)
#define HVSIM_RECORD_MAGIC	0x48544d53494d3031ULL	/* "HTMSIM01" */

static inline __u64 hvsim_target_word(__u32 type, __u32 node, __u32 chip,
				      __u32 core)
{
	return (__u64)(node & 0xffff) << 48 | (__u64)(chip & 0xffff) << 32 |
	       (__u64)(core & 0xffff) << 16 | (type & 0xff);
}

/* splitmix64 finaliser: a cheap, well-mixed pure function. */
static inline __u64 hvsim_mix(__u64 x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static inline __u64 hvsim_record_word(__u64 target, __u64 seq, unsigned int i)
{
	switch (i) {
	case 0:
		return HVSIM_RECORD_MAGIC;
	case 1:
		return target;
	case 2:
		return seq;
	default:
		return hvsim_mix(target ^ hvsim_mix(seq) ^ i);
	}
}

/* Write record (target, seq) as 128 big-endian bytes at @rec. */
static inline void hvsim_record_fill(unsigned char *rec, __u64 target, __u64 seq)
{
	unsigned int i, b;

	for (i = 0; i < HVSIM_RECORD_WORDS; i++) {
		__u64 w = hvsim_record_word(target, seq, i);

		for (b = 0; b < 8; b++)
			rec[i * 8 + b] = (unsigned char)(w >> (56 - 8 * b));
	}
}

static inline __u64 hvsim_record_get(const unsigned char *rec, unsigned int i)
{
	__u64 w = 0;
	unsigned int b;

	for (b = 0; b < 8; b++)
		w = w << 8 | rec[i * 8 + b];
	return w;
}

/**
 * hvsim_slot_seq() - which record a slot holds
 * @slot: record slot in the buffer
 * @nslots: records the buffer holds
 * @written: records written since START
 * @seq: out: the sequence number in the slot
 *
 * Return: 1 if the slot holds a record, 0 if it was never written.
 */
static inline int hvsim_slot_seq(__u64 slot, __u64 nslots, __u64 written,
				 __u64 *seq)
{
	if (slot >= written)
		return 0;
	*seq = slot + (written - 1 - slot) / nslots * nslots;
	return 1;
}

/* Is @rec exactly record (target, seq)? */
static inline int hvsim_record_equal(const unsigned char *rec, __u64 target,
				     __u64 seq)
{
	unsigned int i;

	for (i = 0; i < HVSIM_RECORD_WORDS; i++)
		if (hvsim_record_get(rec, i) != hvsim_record_word(target, seq, i))
			return 0;
	return 1;
}

static inline int hvsim_record_is_zero(const unsigned char *rec)
{
	unsigned int i;

	for (i = 0; i < HVSIM_RECORD_SIZE; i++)
		if (rec[i])
			return 0;
	return 1;
}

#endif /* _HVSIM_RECORD_H */
