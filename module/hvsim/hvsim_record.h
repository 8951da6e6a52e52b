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
 *   word 0      HVSIM_RECORD_MAGIC
 *   word 1      the target word: node << 48 | chip << 32 | core << 16 | type
 *   word 2      the sequence number: records are numbered from 0 at START
 *   words 3-14  hvsim_record_body(i): the same in every record
 *   word 15     hvsim_record_check(target, seq)
 * So a record is a pure function of (target, seq), and the simulator makes
 * one at memory speed: it copies a pattern of ready-made records (words 0
 * and 3-14) and stamps words 1, 2 and 15 into each.
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

#define HVSIM_RECORD_CHECK_WORD	(HVSIM_RECORD_WORDS - 1)

/* Word @i (3 to 14) of every record. */
static inline __u64 hvsim_record_body(unsigned int i)
{
	return hvsim_mix(HVSIM_RECORD_MAGIC + i);
}

/* The last word: ties the record's sequence number to its target. */
static inline __u64 hvsim_record_check(__u64 target, __u64 seq)
{
	return hvsim_mix(target ^ hvsim_mix(seq));
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
	case HVSIM_RECORD_CHECK_WORD:
		return hvsim_record_check(target, seq);
	default:
		return hvsim_record_body(i);
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

/*
 * Simulated dispatch trace log entries: 48 big-endian bytes, a pure
 * function of (cpu, n), n counting the CPU's events from the simulator's
 * load, except the timebase, which is the CPU's when the entry is written.
 * Event n of a CPU is of type hvsim_dtl_type(cpu, n) (HTMTRACE_DTL_CEDE,
 * _PREEMPT or _FAULT) and is logged only if the CPU's mask has that bit.
 *   @0  u8  dispatch reason     n % 11
 *   @1  u8  preempt reason      H_CEDE (2) for cede, H_CONFER (3) or
 *                               time_slice (4) for preempt, virtual memory
 *                               page fault (6) for fault
 *   @2  u16 processor id        the CPU's hardware id
 *   @4  u32 enqueue to dispatch 1000 + n % 4000 ticks
 *   @8  u32 ready to enqueue    500 + n % 1500 ticks
 *   @12 u32 waiting to ready    n % 10000 ticks
 *   @16 u64 timebase
 *   @24 u64 fault address       for a fault, 0x7fff00000000 | (n << 12) as
 *                               32 bits; else 0
 *   @32 u64 srr0                HVSIM_DTL_MAGIC | cpu
 *   @40 u64 srr1                n
 */
#define HVSIM_DTL_ENTRY_SIZE	48
#define HVSIM_DTL_MAGIC		0x44544c53494d0000ULL	/* "DTLSIM\0\0" */

static inline unsigned int hvsim_dtl_type(__u32 cpu, __u64 n)
{
	return 1U << ((n + cpu) % 3);
}

static inline void hvsim_put_be(unsigned char *p, __u64 v, unsigned int bytes)
{
	unsigned int b;

	for (b = 0; b < bytes; b++)
		p[b] = (unsigned char)(v >> (8 * (bytes - 1 - b)));
}

static inline __u64 hvsim_get_be(const unsigned char *p, unsigned int bytes)
{
	__u64 v = 0;
	unsigned int b;

	for (b = 0; b < bytes; b++)
		v = v << 8 | p[b];
	return v;
}

/* Entry n of @cpu (hardware id @procid) at timebase @tb, into @e. */
static inline void hvsim_dtl_fill(unsigned char *e, __u32 cpu, __u16 procid,
				  __u64 n, __u64 tb)
{
	unsigned int type = hvsim_dtl_type(cpu, n);

	e[0] = n % 11;
	e[1] = type == 1 ? 2 : type == 2 ? (n & 1 ? 4 : 3) : 6;
	hvsim_put_be(e + 2, procid, 2);
	hvsim_put_be(e + 4, 1000 + n % 4000, 4);
	hvsim_put_be(e + 8, 500 + n % 1500, 4);
	hvsim_put_be(e + 12, n % 10000, 4);
	hvsim_put_be(e + 16, tb, 8);
	hvsim_put_be(e + 24, type == 4 ?
		     0x7fff00000000ULL | ((n << 12) & 0xffffffffULL) : 0, 8);
	hvsim_put_be(e + 32, HVSIM_DTL_MAGIC | (cpu & 0xffff), 8);
	hvsim_put_be(e + 40, n, 8);
}

/* The stolen ticks entry n reports: what stolen-time accounting adds up. */
static inline __u64 hvsim_dtl_stolen(__u64 n)
{
	return 1000 + n % 4000 + 500 + n % 1500;
}

#endif /* _HVSIM_RECORD_H */
