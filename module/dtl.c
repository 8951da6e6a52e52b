// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace: the dispatch trace log capture engine.
 *
 * The hypervisor logs, per virtual processor, each dispatch and preemption
 * into a ring of 85 entries and advances the CPU's lppaca dtl_idx. A session
 * reads the rings of the selected CPUs into one stream of records:
 *
 *  - per CPU, where the kernel owns a log (it registered one for stolen-time
 *    accounting), the kernel's ring is read with an index of our own and our
 *    event mask is ORed into the CPU's; elsewhere a buffer of our own is
 *    registered. Both are undone at the end of the CPU's capture.
 *  - a pinned hrtimer per CPU copies new entries; its period adapts to the
 *    rate, short enough that the ring does not overflow, long when idle.
 *  - entries the hypervisor overwrote before they were copied, and entries
 *    that did not fit in the session's ring, are counted and appear in the
 *    stream as LOST records where they would have been.
 *  - CPU hotplug: a CPU going offline ends its capture with a CPU record; a
 *    selected CPU coming online joins.
 *
 * The session is /dev/vpa_dtl's, or the vpa_dtl perf PMU's (htm_dtl_pmu_*):
 * one owner of the log at a time. For the PMU, each CPU's capture is
 * begun and ended by its event, on that CPU, and its records go to the
 * event's sink (the AUX area), each CPU's stream starting with its own
 * clock record, instead of into the session's ring.
 */
#define pr_fmt(fmt) "htmtrace: " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/hrtimer.h>
#include <linux/kmemleak.h>
#include <linux/log2.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include <asm/paca.h>
#include <asm/time.h>

#include "htmtrace.h"

/* the hypervisor's ring */

/**
 * htm_dtl_span() - which entries of the hypervisor's ring can still be read
 * @last: index of the next entry the reader wants
 * @cur: the CPU's index now (one past the newest entry)
 * @first: receives the index of the first entry to copy
 * @overwritten: receives how many entries from @last on are gone
 *
 * The ring holds HTM_DTL_ENTRIES entries, but the slot after the newest may
 * be being written: only the HTM_DTL_READABLE newest can be read.
 */
void htm_dtl_span(u64 last, u64 cur, u64 *first, u64 *overwritten)
{
	u64 oldest = cur > HTM_DTL_READABLE ? cur - HTM_DTL_READABLE : 0;

	*first = max(last, oldest);
	*overwritten = *first - last;
}
EXPORT_SYMBOL_IF_KUNIT(htm_dtl_span);

/**
 * htm_dtl_next_period() - the capture timer's next period
 * @period_ns: the period that just ended
 * @n: entries it found
 *
 * Aims at HTM_DTL_PER_PERIOD entries a period, a fifth of what the ring
 * can hold, so that a rate that doubles between two periods still fits;
 * grows at most twice a period and doubles while the CPU logs nothing, up
 * to HTM_DTL_PERIOD_MAX.
 *
 * Return: the next period in ns.
 */
u64 htm_dtl_next_period(u64 period_ns, u64 n)
{
	u64 next;

	if (!n)
		next = period_ns * 2;
	else
		next = min(period_ns * HTM_DTL_PER_PERIOD / n, period_ns * 2);
	return clamp_t(u64, next, HTM_DTL_PERIOD_MIN, HTM_DTL_PERIOD_MAX);
}
EXPORT_SYMBOL_IF_KUNIT(htm_dtl_next_period);

/**
 * htm_dtl_config_check() - check a configuration from the user
 * @cfg: HTMTRACE_IOC_DTL_CONFIGURE argument (its CPU mask is checked when
 *	it is copied in)
 * @ring_size: receives the session ring's size in bytes: the KiB asked for
 *	(or the default) rounded up to a power of two
 *
 * Return: 0 or -EINVAL (an unknown flag or a reserved field set, an event
 * mask of no or unknown events, a ring size out of range).
 */
int htm_dtl_config_check(const struct htmtrace_dtl_config *cfg,
			 u32 *ring_size)
{
	u32 kb = cfg->ring_kb ?: HTM_DTL_RING_KB_DEFAULT;

	if (cfg->flags & ~HTMTRACE_DTL_F_KEEP || cfg->reserved[0] ||
	    cfg->reserved[1])
		return -EINVAL;
	if (!cfg->mask || cfg->mask & ~HTMTRACE_DTL_ALL)
		return -EINVAL;
	if (kb < HTM_DTL_RING_KB_MIN || kb > HTM_DTL_RING_KB_MAX)
		return -EINVAL;
	*ring_size = roundup_pow_of_two(kb) * 1024;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(htm_dtl_config_check);

/* the session's ring of records */

/**
 * htm_dtl_ring_put() - append a record
 * @ring: ring, its lock held
 * @rec: the record; its header's length says how long it is
 *
 * Return: true, or false if it does not fit (nothing is written).
 */
bool htm_dtl_ring_put(struct htm_dtl_ring *ring, const void *rec)
{
	u32 len = ((const struct htmtrace_dtl_rec *)rec)->len;
	u32 off = ring->head & (ring->size - 1);
	u32 part = min(len, ring->size - off);

	if (ring->size - (ring->head - ring->tail) < len)
		return false;
	memcpy(ring->buf + off, rec, part);
	memcpy(ring->buf, rec + part, len - part);
	ring->head += len;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(htm_dtl_ring_put);

/**
 * htm_dtl_ring_whole() - bytes of the whole records that fit in @max
 * @ring: ring, its lock held or its consumer's
 * @max: room the reader has
 *
 * Return: bytes from the tail, a sum of whole records' lengths.
 */
u32 htm_dtl_ring_whole(const struct htm_dtl_ring *ring, size_t max)
{
	u64 pos = ring->tail;
	u32 len, n = 0;

	while (pos < ring->head) {
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
EXPORT_SYMBOL_IF_KUNIT(htm_dtl_ring_whole);

/*
 * Copy @len bytes from the tail to the user. Only the consumer (under the
 * read lock) moves the tail, and producers write only past the head, so the
 * bytes are stable without the ring lock. Return: bytes not copied.
 */
static unsigned long htm_dtl_ring_copy(const struct htm_dtl_ring *ring,
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

/* records */

static void htm_dtl_rec_init(struct htmtrace_dtl_rec *hdr, u16 type, u16 len,
			     u32 cpu)
{
	hdr->type = type;
	hdr->len = len;
	hdr->cpu = cpu;
}

/**
 * htm_dtl_clock_rec() - the record that maps timebase to the clocks
 * @rec: result
 * @tb: a timebase value
 * @mono: CLOCK_MONOTONIC at @tb, ns
 * @boot: CLOCK_BOOTTIME at @tb, ns
 * @real: CLOCK_REALTIME at @tb, ns
 */
void htm_dtl_clock_rec(struct htmtrace_dtl_clock *rec, u64 tb, u64 mono,
		       u64 boot, u64 real)
{
	memset(rec, 0, sizeof(*rec));
	htm_dtl_rec_init(&rec->hdr, HTMTRACE_DTL_REC_CLOCK, sizeof(*rec), ~0U);
	rec->version = 1;
	rec->tb_freq = tb_ticks_per_sec;
	rec->timebase = tb;
	rec->monotonic_ns = mono;
	rec->boottime_ns = boot;
	rec->realtime_ns = real;
}
EXPORT_SYMBOL_IF_KUNIT(htm_dtl_clock_rec);

/* The clock record now: the clocks read between two timebase reads. */
static void htm_dtl_clock_now(struct htmtrace_dtl_clock *rec)
{
	unsigned long flags;
	u64 tb0, tb1, mono, boot, real;

	local_irq_save(flags);
	tb0 = get_tb();
	mono = ktime_get_ns();
	boot = ktime_get_boottime_ns();
	real = ktime_get_real_ns();
	tb1 = get_tb();
	local_irq_restore(flags);
	htm_dtl_clock_rec(rec, tb0 + (tb1 - tb0) / 2, mono, boot, real);
}

/* One record of a CPU's: into its sink if it has one, else the ring. */
static bool htm_dtl_put(struct htm_dtl *dtl, struct htm_dtl_cpu *c,
			const void *rec)
{
	if (c->sink)
		return c->sink->put(c->sink_arg, rec);
	return htm_dtl_ring_put(&dtl->ring, rec);
}

/* Push a CPU's pending event @e, if it has one; false if it did not fit. */
static bool htm_dtl_flush_event(struct htm_dtl *dtl, struct htm_dtl_cpu *c,
				unsigned int e)
{
	struct htmtrace_dtl_cpu ev;

	if (!test_bit(e, &c->events))
		return true;
	memset(&ev, 0, sizeof(ev));
	htm_dtl_rec_init(&ev.hdr, HTMTRACE_DTL_REC_CPU, sizeof(ev), c->cpu);
	ev.event = e;
	if (e == HTMTRACE_DTL_CPU_FAILED)
		ev.error = c->error;
	if (!htm_dtl_put(dtl, c, &ev))
		return false;
	clear_bit(e, &c->events);
	return true;
}

/* Push a CPU's pending LOST records of @lost; false if one did not fit. */
static bool htm_dtl_flush_lost(struct htm_dtl *dtl, struct htm_dtl_cpu *c,
			       u64 *lost)
{
	struct htmtrace_dtl_lost rec;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c->lost); i++) {
		if (!lost[i])
			continue;
		memset(&rec, 0, sizeof(rec));
		htm_dtl_rec_init(&rec.hdr, HTMTRACE_DTL_REC_LOST, sizeof(rec),
				 c->cpu);
		rec.why = i + 1;
		rec.count = lost[i];
		if (!htm_dtl_put(dtl, c, &rec))
			return false;
		lost[i] = 0;
	}
	return true;
}

/*
 * Push the records of the oldest of a CPU's captures that has some pending,
 * in the order of the capture: (with a sink) the clock, JOINED, the losses,
 * the record of what ended it. Caller holds the ring lock.
 */
static bool htm_dtl_flush_capture(struct htm_dtl *dtl, struct htm_dtl_cpu *c)
{
	struct htmtrace_dtl_clock clock;
	unsigned int e;

	lockdep_assert_held(&dtl->ring_lock);
	/* A CPU with a sink of its own starts its stream with a clock. */
	if (c->clock_pending) {
		htm_dtl_clock_now(&clock);
		if (!htm_dtl_put(dtl, c, &clock))
			return false;
		c->clock_pending = false;
	}
	if (!htm_dtl_flush_event(dtl, c, HTMTRACE_DTL_CPU_JOINED) ||
	    !htm_dtl_flush_lost(dtl, c, c->lost))
		return false;
	for (e = HTMTRACE_DTL_CPU_OFFLINE; e <= HTMTRACE_DTL_CPU_FAILED; e++)
		if (!htm_dtl_flush_event(dtl, c, e))
			return false;
	return true;
}

/* The oldest capture's records are out: the one begun after it is next. */
static void htm_dtl_next_capture(struct htm_dtl_cpu *c)
{
	if (!c->rejoined)
		return;
	c->rejoined = false;
	set_bit(HTMTRACE_DTL_CPU_JOINED, &c->events);
	memcpy(c->lost, c->relost, sizeof(c->lost));
	memset(c->relost, 0, sizeof(c->relost));
	if (c->reended)
		set_bit(c->reended, &c->events);
	c->reended = 0;
}

/*
 * Push a CPU's pending records: those of its oldest capture, then those of
 * the capture it began again meanwhile (@rejoined). Caller holds the ring
 * lock.
 */
static bool htm_dtl_flush_cpu(struct htm_dtl *dtl, struct htm_dtl_cpu *c)
{
	if (!htm_dtl_flush_capture(dtl, c))
		return false;
	if (!c->rejoined)
		return true;
	htm_dtl_next_capture(c);
	return htm_dtl_flush_capture(dtl, c);
}

/*
 * Push what is pending: what the captures before the last START left
 * (@prev_pending: a loss belongs to the capture it happened in), the
 * session's clock record, then each CPU's. A CPU whose records are not all
 * out gets no entry into the ring before them. Caller holds the ring lock.
 */
static bool htm_dtl_flush(struct htm_dtl *dtl, struct htm_dtl_cpu *only)
{
	struct htmtrace_dtl_clock clock;
	struct htm_dtl_cpu *c;
	unsigned int cpu;

	lockdep_assert_held(&dtl->ring_lock);
	if (dtl->clock_pending) {
		for_each_cpu(cpu, dtl->cpus) {
			c = dtl->pcpu[cpu];
			if (!c || !c->prev_pending)
				continue;
			if (!htm_dtl_flush_capture(dtl, c))
				return false;
			htm_dtl_next_capture(c);
			c->prev_pending = false;
		}
		htm_dtl_clock_now(&clock);
		if (!htm_dtl_ring_put(&dtl->ring, &clock))
			return false;
		dtl->clock_pending = false;
	}
	if (only)
		return htm_dtl_flush_cpu(dtl, only);
	for_each_cpu(cpu, dtl->cpus)
		if (dtl->pcpu[cpu] && !htm_dtl_flush_cpu(dtl, dtl->pcpu[cpu]))
			return false;
	return true;
}

/* Has the CPU records of a capture still waiting for room? */
static bool htm_dtl_cpu_pending(const struct htm_dtl_cpu *c)
{
	return c->events || c->lost[0] || c->lost[1];
}

/*
 * capture on one CPU: on that CPU in its timer, or from anywhere once the
 * timer is cancelled
 */

/* The event mask the CPU has while we capture: what we set. */
static u8 htm_dtl_cpu_our_mask(const struct htm_dtl_cpu *c)
{
	return c->kernel_owned ? c->saved_mask | c->mask : c->mask;
}

/*
 * Has another user changed the CPU's log under us? Return: 0 no;
 * HTM_DTL_TAKEN_MASK if the event mask is no longer exactly what we set,
 * wider or narrower (the log is still the one we read); HTM_DTL_TAKEN_LOG
 * if the log itself changed: a kernel log freed or replaced, or the index
 * moved back (a new registration resets it), so that the registration may
 * no longer be ours.
 */
static int htm_dtl_cpu_taken(struct htm_dtl *dtl, struct htm_dtl_cpu *c,
			     u64 cur)
{
	u8 mask = htm_hv_dtl_mask(dtl->hv, c->cpu);

	if (c->kernel_owned && READ_ONCE(paca_ptrs[c->cpu]->dispatch_log) !=
	    c->log)
		return HTM_DTL_TAKEN_LOG;
	if (cur < c->last)
		return HTM_DTL_TAKEN_LOG;
	return mask != htm_dtl_cpu_our_mask(c) ? HTM_DTL_TAKEN_MASK : 0;
}

/* The CPU's capture is over: record why, and stop polling. */
static void htm_dtl_cpu_ended(struct htm_dtl *dtl, struct htm_dtl_cpu *c,
			      unsigned int why)
{
	unsigned long flags;

	WRITE_ONCE(c->state, HTMTRACE_DTL_CPU_ENDED);
	raw_spin_lock_irqsave(&dtl->ring_lock, flags);
	if (c->rejoined)
		c->reended = why;
	else
		set_bit(why, &c->events);
	raw_spin_unlock_irqrestore(&dtl->ring_lock, flags);
	wake_up_interruptible(&dtl->wait);
}

/*
 * Copy the entries logged since the last poll into the session's ring, and
 * count in c->logged what the hypervisor logged.
 */
static void htm_dtl_cpu_poll(struct htm_dtl *dtl, struct htm_dtl_cpu *c)
{
	struct htmtrace_dtl_entry_rec rec;
	unsigned long flags;
	u64 cur, again, first, over, valid, n, i, pushed = 0, dropped = 0;
	bool room, began = false;
	u64 *lost;

	cur = htm_hv_dtl_index(dtl->hv, c->cpu);
	c->taken = htm_dtl_cpu_taken(dtl, c, cur);
	if (c->taken) {
		htm_dtl_cpu_ended(dtl, c, HTMTRACE_DTL_CPU_LOST);
		return;
	}
	if (cur == c->last)
		return;

	/* Entries below the index are whole (the hypervisor wrote them first). */
	smp_rmb();
	htm_dtl_span(c->last, cur, &first, &over);
	n = cur - first;
	for (i = 0; i < n; i++)
		c->stage[i] = c->log[(first + i) % HTM_DTL_ENTRIES];
	/* Entries overwritten while they were copied are not valid. */
	smp_rmb();
	again = htm_hv_dtl_index(dtl->hv, c->cpu);
	/*
	 * The kernel may have freed its log while we copied (dtl_access_lock,
	 * which orders its users, is not exported): the copy is then
	 * discarded. The window that remains - the log freed and its memory
	 * reused between the two looks - is documented in htmtrace(4).
	 */
	if (c->kernel_owned &&
	    READ_ONCE(paca_ptrs[c->cpu]->dispatch_log) != c->log) {
		c->taken = HTM_DTL_TAKEN_LOG;
		htm_dtl_cpu_ended(dtl, c, HTMTRACE_DTL_CPU_LOST);
		return;
	}
	htm_dtl_span(first, again, &valid, &i);
	i = min(i, n);
	over += i;
	c->logged += cur - c->last;

	memset(&rec, 0, sizeof(rec));
	htm_dtl_rec_init(&rec.hdr, HTMTRACE_DTL_REC_ENTRY, sizeof(rec), c->cpu);
	raw_spin_lock_irqsave(&dtl->ring_lock, flags);
	/* While the last capture's end waits for room, this one's losses wait too. */
	lost = c->rejoined ? c->relost : c->lost;
	c->overwritten += over;
	lost[0] += over;
	/*
	 * What is pending goes first; once an entry does not fit, the rest of
	 * this poll is dropped too (the reader's next read reports them).
	 */
	if (c->sink) {
		began = c->sink->begin(c->sink_arg, false);
		room = began && htm_dtl_flush_cpu(dtl, c);
	} else {
		room = htm_dtl_flush(dtl, c);
	}
	for (; i < n; i++) {
		memcpy(rec.entry, &c->stage[i], sizeof(rec.entry));
		room = room && htm_dtl_put(dtl, c, &rec);
		if (room) {
			pushed++;
		} else {
			dropped++;
			lost[1]++;
		}
	}
	if (began)
		c->sink->end(c->sink_arg, dropped);
	c->entries += pushed;
	c->dropped += dropped;
	raw_spin_unlock_irqrestore(&dtl->ring_lock, flags);
	WRITE_ONCE(c->last, cur);
	if (pushed && !c->sink)
		wake_up_interruptible(&dtl->wait);
}

static enum hrtimer_restart htm_dtl_timer(struct hrtimer *timer)
{
	struct htm_dtl_cpu *c = container_of(timer, struct htm_dtl_cpu, timer);
	u32 fixed_us = READ_ONCE(htm_dtl_period_us);
	u64 logged = c->logged, dropped = c->dropped;

	c->wakeups++;
	htm_dtl_cpu_poll(c->dtl, c);
	if (READ_ONCE(c->state) != HTMTRACE_DTL_CPU_CAPTURING)
		return HRTIMER_NORESTART;
	/* A fixed period (dtl_period_us) is for comparisons: see make bench. */
	if (fixed_us)
		c->period_ns = max_t(u64, fixed_us, 100) * NSEC_PER_USEC;
	else if (c->dropped != dropped)
		/* The ring is full and unread: polling faster saves nothing. */
		c->period_ns = HTM_DTL_PERIOD_MAX;
	else
		c->period_ns = htm_dtl_next_period(c->period_ns,
						   c->logged - logged);
	hrtimer_forward_now(timer, ns_to_ktime(c->period_ns));
	return HRTIMER_RESTART;
}

/*
 * Begin capturing on the CPU we run on (bound to it, in process context).
 * Return: 0 or the errno of the registration (also in the stream).
 */
static long htm_dtl_cpu_begin(void *arg)
{
	struct htm_dtl_cpu *c = arg;
	struct htm_dtl *dtl = c->dtl;
	struct dtl_entry *klog;
	unsigned long flags;
	int cpu = c->cpu, ret;

	c->saved_mask = htm_hv_dtl_mask(dtl->hv, cpu);
	c->taken = 0;
	/* The kernel's log pointer is read once: c->log is what we read. */
	klog = READ_ONCE(paca_ptrs[cpu]->dispatch_log);
	if (klog) {
		/*
		 * Never register over the kernel's log: read it alongside. The
		 * mask is set before the capture's first index is taken, so
		 * that every entry captured was logged under the whole mask.
		 */
		c->kernel_owned = true;
		htm_hv_dtl_set_mask(dtl->hv, cpu, c->saved_mask | c->mask);
		c->log = klog;
		c->last = htm_hv_dtl_index(dtl->hv, cpu);
	} else {
		c->kernel_owned = false;
		/* Another user's mask: not ours to take over (see configure). */
		ret = c->saved_mask ? -EBUSY : 0;
		if (!ret) {
			memset(c->own, 0, HTM_DTL_BYTES);
			/* H_REGISTER_VPA reads the length from the second word. */
			((__be32 *)c->own)[1] = cpu_to_be32(HTM_DTL_BYTES);
			/* Registers, then resets the index to 0. */
			ret = htm_hv_dtl_register(dtl->hv, cpu, c->own);
		}
		if (ret) {
			c->error = ret;
			htm_dtl_cpu_ended(dtl, c, HTMTRACE_DTL_CPU_FAILED);
			return ret;
		}
		c->log = c->own;
		c->last = 0;
		/*
		 * As mainline's register_dtl users: the mask only once the
		 * log is registered and its index reset, so that nothing is
		 * logged where the reset would lose it.
		 */
		smp_wmb();
		htm_hv_dtl_set_mask(dtl->hv, cpu, c->mask);
	}
	WRITE_ONCE(c->state, HTMTRACE_DTL_CPU_CAPTURING);
	/*
	 * If records of the last capture (its end, or losses counted before
	 * a STOP) still wait for room, this capture's records wait after
	 * them (@rejoined). A capture that ends and begins again while they
	 * wait is folded into this one.
	 */
	raw_spin_lock_irqsave(&dtl->ring_lock, flags);
	if (htm_dtl_cpu_pending(c) && !c->rejoined)
		c->rejoined = true;
	else if (!c->rejoined)
		set_bit(HTMTRACE_DTL_CPU_JOINED, &c->events);
	c->reended = 0;
	raw_spin_unlock_irqrestore(&dtl->ring_lock, flags);
	c->period_ns = HTM_DTL_PERIOD_START;
	hrtimer_start(&c->timer, ns_to_ktime(c->period_ns),
		      HRTIMER_MODE_REL_PINNED);
	return 0;
}

/*
 * End capturing on a CPU (from any CPU): stop the timer, take what is left,
 * and give back what we changed (unless another user changed it since).
 * @why: HTMTRACE_DTL_CPU_OFFLINE, or 0 for the end of the session.
 */
static void htm_dtl_cpu_end(struct htm_dtl_cpu *c, unsigned int why)
{
	struct htm_dtl *dtl = c->dtl;
	int cpu = c->cpu, ret;

	hrtimer_cancel(&c->timer);
	if (READ_ONCE(c->state) == HTMTRACE_DTL_CPU_CAPTURING) {
		htm_dtl_cpu_poll(dtl, c);
		if (why)
			htm_dtl_cpu_ended(dtl, c, why);
	}
	/* The mask is given back only if it is still exactly what we set. */
	if (c->log && c->taken != HTM_DTL_TAKEN_LOG &&
	    htm_hv_dtl_mask(dtl->hv, cpu) == htm_dtl_cpu_our_mask(c))
		htm_hv_dtl_set_mask(dtl->hv, cpu, c->saved_mask);
	if (c->log && !c->kernel_owned) {
		/* A log another user replaced is theirs to unregister. */
		ret = c->taken == HTM_DTL_TAKEN_LOG ? -EBUSY :
		      htm_hv_dtl_unregister(dtl->hv, cpu);
		if (ret) {
			pr_warn("cpu%d: dispatch trace log buffer %s (%d): left allocated, the hypervisor may still write it\n",
				cpu, ret == -EBUSY ? "replaced by another user" :
				"not unregistered", ret);
			c->keep_own = true;
		}
	}
	c->log = NULL;
	if (READ_ONCE(c->state) == HTMTRACE_DTL_CPU_CAPTURING)
		WRITE_ONCE(c->state, HTMTRACE_DTL_CPU_WAITING);
	wake_up_interruptible(&dtl->wait);
}

/* CPU hotplug, while a session runs */

static struct htm_dtl *htm_dtl_hp_session;

static int htm_dtl_cpu_online(unsigned int cpu)
{
	struct htm_dtl *dtl = htm_dtl_hp_session;
	struct htm_dtl_cpu *c;

	mutex_lock(&dtl->lock);
	c = dtl->state == HTM_DTL_RUNNING ? dtl->pcpu[cpu] : NULL;
	if (c && c->state == HTMTRACE_DTL_CPU_WAITING)
		htm_dtl_cpu_begin(c);
	mutex_unlock(&dtl->lock);
	return 0;
}

static int htm_dtl_cpu_offline(unsigned int cpu)
{
	struct htm_dtl *dtl = htm_dtl_hp_session;
	struct htm_dtl_cpu *c;

	mutex_lock(&dtl->lock);
	c = dtl->state == HTM_DTL_RUNNING ? dtl->pcpu[cpu] : NULL;
	if (c && c->state == HTMTRACE_DTL_CPU_CAPTURING) {
		htm_dtl_cpu_end(c, HTMTRACE_DTL_CPU_OFFLINE);
		/* It may come back: it then joins again. */
		WRITE_ONCE(c->state, HTMTRACE_DTL_CPU_WAITING);
	}
	mutex_unlock(&dtl->lock);
	return 0;
}

/* the session */

/**
 * htm_dtl_init() - set up an idle session
 * @dtl: session; the only one (the CPU hotplug callbacks know it)
 *
 * The hotplug callbacks stay registered for the session's whole life and
 * act only while it runs: registering them takes the hotplug state mutex,
 * which must never be taken under @dtl->lock (the callbacks take that).
 *
 * Return: 0 or the error of registering the CPU hotplug callbacks.
 */
int htm_dtl_init(struct htm_dtl *dtl)
{
	int ret;

	memset(dtl, 0, sizeof(*dtl));
	mutex_init(&dtl->lock);
	mutex_init(&dtl->read_lock);
	raw_spin_lock_init(&dtl->ring_lock);
	init_waitqueue_head(&dtl->wait);
	htm_dtl_hp_session = dtl;
	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN,
					"htmtrace/dtl:online",
					htm_dtl_cpu_online,
					htm_dtl_cpu_offline);
	if (ret < 0)
		return ret;
	dtl->hp_state = ret;
	return 0;
}

/* The session is idle and goes: no more hotplug callbacks. */
void htm_dtl_exit(struct htm_dtl *dtl)
{
	cpuhp_remove_state_nocalls(dtl->hp_state);
	mutex_destroy(&dtl->lock);
	mutex_destroy(&dtl->read_lock);
}

static void htm_dtl_free(struct htm_dtl *dtl)
{
	unsigned int cpu;

	if (dtl->pcpu) {
		for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
			struct htm_dtl_cpu *c = dtl->pcpu[cpu];

			if (!c)
				continue;
			/* Never freed, so not a leak for kmemleak either. */
			if (c->keep_own)
				kmemleak_not_leak(c->own);
			else
				kfree(c->own);
			kfree(c);
		}
	}
	kfree(dtl->pcpu);
	dtl->pcpu = NULL;
	kvfree(dtl->ring.buf);
	dtl->ring.buf = NULL;
	free_cpumask_var(dtl->cpus);
}

/* A CPU's capture, allocated and idle. */
static void htm_dtl_cpu_setup(struct htm_dtl *dtl, struct htm_dtl_cpu *c,
			      unsigned int cpu, u8 mask)
{
	c->dtl = dtl;
	c->cpu = cpu;
	c->mask = mask;
	hrtimer_init(&c->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED);
	c->timer.function = htm_dtl_timer;
}

/*
 * In own-buffer mode (no kernel log), a CPU whose event mask is not 0 is
 * another user's (debugfs dtl, another tool): not ours to take over. The
 * hypervisor has no call that says whether a log is registered; a nonzero
 * mask is how every public user of the log shows it logs.
 */
static bool htm_dtl_cpu_busy(const struct htmtrace_hv_ops *hv, int cpu)
{
	return !READ_ONCE(paca_ptrs[cpu]->dispatch_log) &&
	       htm_hv_dtl_mask(hv, cpu);
}

/**
 * htm_dtl_configure() - claim the dispatch trace log for a session
 * @dtl: an idle session
 * @hv: backend
 * @cpus: the CPUs to capture (possible CPUs only)
 * @mask: HTMTRACE_DTL_* events
 * @ring_size: bytes of the session's ring, a power of two
 * @owner: the session ends when htm_dtl_end() is called with it (the file
 *	that configured it), or NULL: only an explicit deconfigure ends it
 *
 * Return: 0, -EBUSY if a session exists (or perf events hold the log), or
 * a CPU without a kernel log has another user's event mask, -ENOMEM.
 */
int htm_dtl_configure(struct htm_dtl *dtl, const struct htmtrace_hv_ops *hv,
		      const struct cpumask *cpus, u8 mask, u32 ring_size,
		      const void *owner)
{
	unsigned int cpu;
	int ret = -ENOMEM;

	mutex_lock(&dtl->lock);
	if (dtl->state != HTM_DTL_IDLE) {
		mutex_unlock(&dtl->lock);
		return -EBUSY;
	}
	for_each_cpu_and(cpu, cpus, cpu_possible_mask) {
		if (htm_dtl_cpu_busy(hv, cpu)) {
			mutex_unlock(&dtl->lock);
			return -EBUSY;
		}
	}
	if (!zalloc_cpumask_var(&dtl->cpus, GFP_KERNEL))
		goto out;
	cpumask_and(dtl->cpus, cpus, cpu_possible_mask);
	dtl->pcpu = kcalloc(nr_cpu_ids, sizeof(*dtl->pcpu), GFP_KERNEL);
	dtl->ring.buf = kvmalloc(ring_size, GFP_KERNEL);
	if (!dtl->pcpu || !dtl->ring.buf)
		goto out;
	for_each_cpu(cpu, dtl->cpus) {
		struct htm_dtl_cpu *c;

		c = kzalloc_node(sizeof(*c), GFP_KERNEL, cpu_to_node(cpu));
		if (!c)
			goto out;
		dtl->pcpu[cpu] = c;
		/* kmalloc() aligns a power-of-two size: 4 KiB, no crossing */
		c->own = kzalloc_node(HTM_DTL_BYTES, GFP_KERNEL,
				      cpu_to_node(cpu));
		if (!c->own)
			goto out;
		htm_dtl_cpu_setup(dtl, c, cpu, mask);
	}
	dtl->hv = hv;
	dtl->ring.size = ring_size;
	dtl->ring.head = 0;
	dtl->ring.tail = 0;
	dtl->owner = owner;
	/* Pairs with htm_dtl_read(): the ring and the CPUs before the state. */
	smp_store_release(&dtl->state, HTM_DTL_CONFIGURED);
	ret = 0;
out:
	if (ret)
		htm_dtl_free(dtl);
	mutex_unlock(&dtl->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(htm_dtl_configure);

/**
 * htm_dtl_start() - begin capturing
 * @dtl: a configured or stopped session
 *
 * Each selected online CPU joins now, each selected offline CPU when it
 * comes online. A CPU whose registration fails says so in the stream; the
 * others go on.
 *
 * Return: 0 or -EBADFD in another state.
 */
int htm_dtl_start(struct htm_dtl *dtl)
{
	unsigned long flags;
	unsigned int cpu;
	int ret;

	cpus_read_lock();
	mutex_lock(&dtl->lock);
	if (dtl->state != HTM_DTL_CONFIGURED &&
	    dtl->state != HTM_DTL_STOPPED) {
		ret = -EBADFD;
		goto out;
	}
	ret = 0;
	raw_spin_lock_irqsave(&dtl->ring_lock, flags);
	/*
	 * What the last captures left goes out first; what finds no room
	 * waits, marked as theirs, before this START's clock record.
	 */
	htm_dtl_flush(dtl, NULL);
	for_each_cpu(cpu, dtl->cpus)
		dtl->pcpu[cpu]->prev_pending =
			htm_dtl_cpu_pending(dtl->pcpu[cpu]);
	dtl->clock_pending = true;
	htm_dtl_flush(dtl, NULL);
	raw_spin_unlock_irqrestore(&dtl->ring_lock, flags);
	/* Pairs with htm_dtl_read()'s acquire, as every state change does. */
	smp_store_release(&dtl->state, HTM_DTL_RUNNING);
	for_each_cpu(cpu, dtl->cpus) {
		struct htm_dtl_cpu *c = dtl->pcpu[cpu];

		WRITE_ONCE(c->state, HTMTRACE_DTL_CPU_WAITING);
		if (cpu_online(cpu))
			work_on_cpu(cpu, htm_dtl_cpu_begin, c);
	}
	wake_up_interruptible(&dtl->wait);
out:
	mutex_unlock(&dtl->lock);
	cpus_read_unlock();
	return ret;
}

/* End every CPU's capture; @dtl->lock held, the session running. */
static void htm_dtl_stop_locked(struct htm_dtl *dtl)
{
	unsigned int cpu;

	lockdep_assert_held(&dtl->lock);
	/* The timer is cancelled first, so no poll runs alongside. */
	for_each_cpu(cpu, dtl->cpus)
		htm_dtl_cpu_end(dtl->pcpu[cpu], 0);
	/* Pairs with htm_dtl_read(): the last entries are in before STOPPED. */
	smp_store_release(&dtl->state, HTM_DTL_STOPPED);
	wake_up_interruptible_all(&dtl->wait);
}

/**
 * htm_dtl_stop() - end capturing
 * @dtl: session
 *
 * Every CPU's log and mask is given back; what was captured stays readable,
 * and read() returns 0 once it is drained.
 *
 * Return: 0 (stopping a stopped session too), or -EBADFD if never started.
 */
int htm_dtl_stop(struct htm_dtl *dtl)
{
	int ret = 0;

	cpus_read_lock();
	mutex_lock(&dtl->lock);
	if (dtl->state == HTM_DTL_RUNNING)
		htm_dtl_stop_locked(dtl);
	else if (dtl->state != HTM_DTL_STOPPED)
		ret = -EBADFD;
	mutex_unlock(&dtl->lock);
	cpus_read_unlock();
	return ret;
}

/**
 * htm_dtl_end() - end the session, stopping it first
 * @dtl: session
 * @owner: NULL to end the session whoever configured it (DECONFIGURE), or
 *	a closing file: the session ends only if that file configured it
 *	without HTMTRACE_DTL_F_KEEP
 *
 * One transition: the state is checked and changed under the locks, in
 * their order (see struct htm_dtl), so that of two calls at once exactly
 * one ends the session, and nothing starts it in between.
 *
 * Return: 0 if this call ended the session, else -EBADFD.
 */
int htm_dtl_end(struct htm_dtl *dtl, const void *owner)
{
	int ret = -EBADFD;

	mutex_lock(&dtl->read_lock);
	cpus_read_lock();
	mutex_lock(&dtl->lock);
	if (dtl->state != HTM_DTL_CONFIGURED &&
	    dtl->state != HTM_DTL_RUNNING && dtl->state != HTM_DTL_STOPPED)
		goto out;
	if (owner && dtl->owner != owner)
		goto out;
	if (dtl->state == HTM_DTL_RUNNING)
		htm_dtl_stop_locked(dtl);
	/* The state first: a lockless poll() reads it, never the ring. */
	smp_store_release(&dtl->state, HTM_DTL_IDLE);
	htm_dtl_free(dtl);
	dtl->hv = NULL;
	dtl->owner = NULL;
	ret = 0;
out:
	mutex_unlock(&dtl->lock);
	cpus_read_unlock();
	mutex_unlock(&dtl->read_lock);
	if (!ret)
		wake_up_interruptible_all(&dtl->wait);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(htm_dtl_end);

/* On a CPU, interrupts off: so never beside its timer. */
static void htm_dtl_cpu_flush_ipi(void *arg)
{
	struct htm_dtl_cpu *c = arg;

	if (READ_ONCE(c->state) == HTMTRACE_DTL_CPU_CAPTURING)
		htm_dtl_cpu_poll(c->dtl, c);
}

/**
 * htm_dtl_flush_now() - copy every CPU's log into the stream now
 * @dtl: session
 *
 * Bounds the delivery latency for a reader that needs it: the entries
 * logged before the call are in the stream (or counted lost) when it
 * returns.
 *
 * Return: 0, or -EBADFD if the session is not running.
 */
int htm_dtl_flush_now(struct htm_dtl *dtl)
{
	unsigned int cpu;
	int ret = 0;

	cpus_read_lock();
	mutex_lock(&dtl->lock);
	if (dtl->state != HTM_DTL_RUNNING) {
		ret = -EBADFD;
		goto out;
	}
	for_each_cpu_and(cpu, dtl->cpus, cpu_online_mask)
		smp_call_function_single(cpu, htm_dtl_cpu_flush_ipi,
					 dtl->pcpu[cpu], 1);
	wake_up_interruptible(&dtl->wait);
out:
	mutex_unlock(&dtl->lock);
	cpus_read_unlock();
	return ret;
}

/* Has the reader something to read, or is the stream over? */
static bool htm_dtl_readable(struct htm_dtl *dtl)
{
	u32 state = READ_ONCE(dtl->state);

	return READ_ONCE(dtl->ring.head) != READ_ONCE(dtl->ring.tail) ||
	       state == HTM_DTL_STOPPED || state == HTM_DTL_IDLE ||
	       state == HTM_DTL_PMU;
}

/**
 * htm_dtl_read() - read whole records of the stream
 * @dtl: session
 * @ubuf: user buffer
 * @count: its size
 * @nonblock: O_NONBLOCK
 *
 * Return: bytes of whole records; 0 once the session is stopped and the
 * stream drained; -ENODATA if there is no session; -EINVAL if @count
 * cannot hold the next record; -EAGAIN, -ERESTARTSYS, -EFAULT.
 */
ssize_t htm_dtl_read(struct htm_dtl *dtl, char __user *ubuf, size_t count,
		     bool nonblock)
{
	unsigned long flags;
	bool empty;
	ssize_t ret;
	u32 len, state;

	if (mutex_lock_interruptible(&dtl->read_lock))
		return -ERESTARTSYS;
	for (;;) {
		/*
		 * The state first: STOPPED is set after the last entries are
		 * in, so an empty ring then means the end of the stream.
		 */
		state = smp_load_acquire(&dtl->state);
		ret = -ENODATA;
		if (state == HTM_DTL_IDLE || state == HTM_DTL_PMU)
			goto out;
		raw_spin_lock_irqsave(&dtl->ring_lock, flags);
		/* What is pending goes out first, now that there may be room. */
		htm_dtl_flush(dtl, NULL);
		len = htm_dtl_ring_whole(&dtl->ring, count);
		empty = dtl->ring.head == dtl->ring.tail;
		raw_spin_unlock_irqrestore(&dtl->ring_lock, flags);
		if (len)
			break;
		ret = -EINVAL;
		if (!empty)
			goto out;
		ret = 0;
		if (state == HTM_DTL_STOPPED)
			goto out;
		ret = -EAGAIN;
		if (nonblock)
			goto out;
		mutex_unlock(&dtl->read_lock);
		if (wait_event_interruptible(dtl->wait, htm_dtl_readable(dtl)))
			return -ERESTARTSYS;
		if (mutex_lock_interruptible(&dtl->read_lock))
			return -ERESTARTSYS;
	}
	if (htm_dtl_ring_copy(&dtl->ring, ubuf, len)) {
		ret = -EFAULT;
		goto out;
	}
	raw_spin_lock_irqsave(&dtl->ring_lock, flags);
	dtl->ring.tail += len;
	htm_dtl_flush(dtl, NULL);
	raw_spin_unlock_irqrestore(&dtl->ring_lock, flags);
	ret = len;
out:
	mutex_unlock(&dtl->read_lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(htm_dtl_read);

/**
 * htm_dtl_poll_mask() - what poll() reports (no lock needed)
 * @dtl: session
 *
 * Return: EPOLLIN | EPOLLRDNORM when a record is ready or the stream is
 * over (EPOLLHUP too then); EPOLLERR | EPOLLHUP without a session.
 */
__poll_t htm_dtl_poll_mask(struct htm_dtl *dtl)
{
	u32 state = READ_ONCE(dtl->state);

	if (state == HTM_DTL_IDLE || state == HTM_DTL_PMU)
		return EPOLLERR | EPOLLHUP;
	if (READ_ONCE(dtl->ring.head) != READ_ONCE(dtl->ring.tail))
		return EPOLLIN | EPOLLRDNORM;
	if (state == HTM_DTL_STOPPED)
		return EPOLLIN | EPOLLRDNORM | EPOLLHUP;
	return 0;
}

/**
 * htm_dtl_stats() - the per-CPU counters
 * @dtl: session
 * @out: array to fill
 * @max: its length
 * @count: receives the number of CPUs in the session
 *
 * Return: 0, -ENOSPC if @max is less than @count (nothing stored),
 * -ENODATA without a session.
 */
int htm_dtl_stats(struct htm_dtl *dtl, struct htmtrace_dtl_cpu_stats *out,
		  u32 max, u32 *count)
{
	unsigned int cpu, n = 0;
	int ret = 0;

	mutex_lock(&dtl->lock);
	if (dtl->state == HTM_DTL_IDLE || dtl->state == HTM_DTL_PMU) {
		ret = -ENODATA;
		goto out;
	}
	*count = cpumask_weight(dtl->cpus);
	if (*count > max) {
		ret = -ENOSPC;
		goto out;
	}
	for_each_cpu(cpu, dtl->cpus) {
		const struct htm_dtl_cpu *c = dtl->pcpu[cpu];

		memset(&out[n], 0, sizeof(out[n]));
		out[n].cpu = cpu;
		out[n].state = READ_ONCE(c->state);
		out[n].entries = READ_ONCE(c->entries);
		out[n].overwritten = READ_ONCE(c->overwritten);
		out[n].dropped = READ_ONCE(c->dropped);
		out[n].wakeups = READ_ONCE(c->wakeups);
		out[n].kernel_owned = c->kernel_owned;
		out[n].next_index = READ_ONCE(c->last);
		n++;
	}
out:
	mutex_unlock(&dtl->lock);
	return ret;
}

/* the session of the vpa_dtl perf PMU */

/**
 * htm_dtl_pmu_get() - hold the dispatch trace log for a perf event
 * @dtl: the session
 * @hv: backend
 *
 * The first event makes the session the PMU's; each later one adds to it.
 * Process context.
 *
 * Return: 0, -EBUSY if /dev/vpa_dtl has a session, -ENOMEM.
 */
int htm_dtl_pmu_get(struct htm_dtl *dtl, const struct htmtrace_hv_ops *hv)
{
	int ret = 0;

	mutex_lock(&dtl->lock);
	if (dtl->state == HTM_DTL_IDLE) {
		dtl->pcpu = kcalloc(nr_cpu_ids, sizeof(*dtl->pcpu), GFP_KERNEL);
		if (!dtl->pcpu || !zalloc_cpumask_var(&dtl->cpus, GFP_KERNEL)) {
			kfree(dtl->pcpu);
			dtl->pcpu = NULL;
			ret = -ENOMEM;
			goto out;
		}
		dtl->hv = hv;
		dtl->pmu_users = 0;
		/* Pairs with htm_dtl_read()'s acquire: it reads no ring now. */
		smp_store_release(&dtl->state, HTM_DTL_PMU);
	} else if (dtl->state != HTM_DTL_PMU) {
		ret = -EBUSY;
		goto out;
	}
	dtl->pmu_users++;
out:
	mutex_unlock(&dtl->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(htm_dtl_pmu_get);

/* An event that held the log is gone: the last one ends the session. */
void htm_dtl_pmu_put(struct htm_dtl *dtl)
{
	mutex_lock(&dtl->lock);
	if (!WARN_ON(dtl->state != HTM_DTL_PMU) && !--dtl->pmu_users) {
		/* Pairs with htm_dtl_read()'s acquire. */
		smp_store_release(&dtl->state, HTM_DTL_IDLE);
		htm_dtl_free(dtl);
		dtl->hv = NULL;
	}
	mutex_unlock(&dtl->lock);
}
EXPORT_SYMBOL_IF_KUNIT(htm_dtl_pmu_put);

/**
 * htm_dtl_pmu_cpu_add() - a CPU's capture for a perf event
 * @dtl: the session, held with htm_dtl_pmu_get()
 * @cpu: the event's CPU
 * @mask: HTMTRACE_DTL_* events to log
 * @sink: where its records go
 * @arg: for @sink
 *
 * Process context. The capture is idle until htm_dtl_pmu_cpu_begin().
 *
 * Return: the capture, or ERR_PTR(-EBUSY) if another event captures the
 * CPU, ERR_PTR(-EINVAL) for a CPU that is not possible, ERR_PTR(-ENOMEM).
 */
struct htm_dtl_cpu *htm_dtl_pmu_cpu_add(struct htm_dtl *dtl, int cpu, u8 mask,
					const struct htm_dtl_sink *sink,
					void *arg)
{
	struct htm_dtl_cpu *c;

	if (cpu < 0 || cpu >= nr_cpu_ids || !cpu_possible(cpu))
		return ERR_PTR(-EINVAL);
	c = kzalloc_node(sizeof(*c), GFP_KERNEL, cpu_to_node(cpu));
	if (!c)
		return ERR_PTR(-ENOMEM);
	/* kmalloc() aligns a power-of-two size: 4 KiB, no crossing */
	c->own = kzalloc_node(HTM_DTL_BYTES, GFP_KERNEL, cpu_to_node(cpu));
	if (!c->own) {
		kfree(c);
		return ERR_PTR(-ENOMEM);
	}
	htm_dtl_cpu_setup(dtl, c, cpu, mask);
	c->sink = sink;
	c->sink_arg = arg;

	mutex_lock(&dtl->lock);
	if (dtl->pcpu[cpu]) {
		mutex_unlock(&dtl->lock);
		kfree(c->own);
		kfree(c);
		return ERR_PTR(-EBUSY);
	}
	dtl->pcpu[cpu] = c;
	cpumask_set_cpu(cpu, dtl->cpus);
	mutex_unlock(&dtl->lock);
	return c;
}
EXPORT_SYMBOL_IF_KUNIT(htm_dtl_pmu_cpu_add);

/* The event is gone, its capture ended: free it (process context). */
void htm_dtl_pmu_cpu_remove(struct htm_dtl *dtl, struct htm_dtl_cpu *c)
{
	mutex_lock(&dtl->lock);
	dtl->pcpu[c->cpu] = NULL;
	cpumask_clear_cpu(c->cpu, dtl->cpus);
	mutex_unlock(&dtl->lock);
	if (c->keep_own)
		kmemleak_not_leak(c->own);
	else
		kfree(c->own);
	kfree(c);
}
EXPORT_SYMBOL_IF_KUNIT(htm_dtl_pmu_cpu_remove);

/**
 * htm_dtl_pmu_cpu_begin() - begin a perf event's capture
 * @c: the capture
 *
 * On @c's CPU, interrupts off (pmu::add). The stream starts with a clock
 * record and a JOINED record, or a FAILED one if the log could not be
 * registered.
 */
void htm_dtl_pmu_cpu_begin(struct htm_dtl_cpu *c)
{
	c->clock_pending = true;
	htm_dtl_cpu_begin(c);
}

/**
 * htm_dtl_pmu_cpu_read() - bring a perf event's capture up to date
 * @c: the capture
 *
 * On @c's CPU, interrupts off (pmu::read), so never beside its timer: what
 * the log holds now goes to the sink, as at the timer's next poll.
 *
 * Return: the entries given to the sink so far.
 */
u64 htm_dtl_pmu_cpu_read(struct htm_dtl_cpu *c)
{
	if (READ_ONCE(c->state) == HTMTRACE_DTL_CPU_CAPTURING)
		htm_dtl_cpu_poll(c->dtl, c);
	return READ_ONCE(c->entries);
}

/**
 * htm_dtl_pmu_cpu_end() - end a perf event's capture
 * @c: the capture
 *
 * On @c's CPU, interrupts off (pmu::del): what the log holds goes to the
 * sink, and the log and its mask are given back.
 */
void htm_dtl_pmu_cpu_end(struct htm_dtl_cpu *c)
{
	unsigned long flags;

	htm_dtl_cpu_end(c, 0);
	/* Whatever is still pending (a loss, the FAILED record) goes now. */
	raw_spin_lock_irqsave(&c->dtl->ring_lock, flags);
	if (c->sink->begin(c->sink_arg, true)) {
		htm_dtl_flush_cpu(c->dtl, c);
		c->sink->end(c->sink_arg, 0);
	}
	raw_spin_unlock_irqrestore(&c->dtl->ring_lock, flags);
}
