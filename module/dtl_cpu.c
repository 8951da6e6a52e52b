// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace: the dispatch trace log capture on one CPU.
 *
 * Per CPU, where the kernel owns a log that lives as long as it does (the
 * native stolen-time accounting's: dtl_log_whose()), the kernel's ring is
 * read with an index of our own and our event mask is ORed into the CPU's;
 * a log the kernel may free is never read; elsewhere a buffer of our own is
 * registered (registered, its index reset, then the mask set, as
 * mainline's users do). A pinned hrtimer per CPU copies new entries; its
 * period adapts to the rate. Entries the hypervisor overwrote before they
 * were copied are counted. Another user's change to the log or the mask
 * ends the CPU's capture.
 */
#define pr_fmt(fmt) "htmtrace: " fmt

#include <linux/errno.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/sched/clock.h>
#include <kunit/visibility.h>

#include <asm/paca.h>

#include "htmtrace.h"
#include "dtl_internal.h"

/* the hypervisor's ring */

/**
 * dtl_span() - which entries of the hypervisor's ring can still be read
 * @last: index of the next entry the reader wants
 * @cur: the CPU's index now (one past the newest entry)
 * @first: receives the index of the first entry to copy
 * @overwritten: receives how many entries from @last on are gone
 *
 * The ring holds DTL_ENTRIES entries, but the slot after the newest may
 * be being written: only the DTL_READABLE newest can be read.
 */
void dtl_span(u64 last, u64 cur, u64 *first, u64 *overwritten)
{
	u64 oldest = cur > DTL_READABLE ? cur - DTL_READABLE : 0;

	*first = max(last, oldest);
	*overwritten = *first - last;
}
EXPORT_SYMBOL_IF_KUNIT(dtl_span);

/**
 * dtl_next_period() - the capture timer's next period
 * @period_ns: the period that just ended
 * @n: entries it found
 *
 * Aims at DTL_PER_PERIOD entries a period, a fifth of what the ring
 * can hold, so that a rate that doubles between two periods still fits;
 * grows at most twice a period and doubles while the CPU logs nothing, up
 * to DTL_PERIOD_MAX.
 *
 * Return: the next period in ns.
 */
u64 dtl_next_period(u64 period_ns, u64 n)
{
	u64 next;

	if (!n)
		next = period_ns * 2;
	else
		next = min(period_ns * DTL_PER_PERIOD / n, period_ns * 2);
	return clamp_t(u64, next, DTL_PERIOD_MIN, DTL_PERIOD_MAX);
}
EXPORT_SYMBOL_IF_KUNIT(dtl_next_period);

/*
 * capture on one CPU: on that CPU in its timer, or from anywhere once the
 * timer is cancelled
 */

/* The event mask the CPU has while we capture: what we set. */
static u8 dtl_cpu_our_mask(const struct dtl_cpu *c)
{
	return c->kernel_owned ? c->saved_mask | c->mask : c->mask;
}

/*
 * Has another user changed the CPU's log under us? Return: 0 no;
 * DTL_OTHER_MASK if the event mask is no longer exactly what we set,
 * wider or narrower (the log is still the one we read); DTL_OTHER_LOG
 * if the log itself changed: a kernel log appeared where we registered
 * our own (vcpudispatch_stats enabled: it registers its own over ours) or
 * is not the one we read, or the index
 * moved back (a new registration resets it), or, in our own buffer, the
 * newest entry the index points at is not there (empty, or older than one
 * we read: the hypervisor writes another user's buffer, whose index passed
 * ours), so that the registration may no longer be ours.
 */
static int dtl_cpu_other_change(struct vpa_dtl *dtl,
				struct dtl_cpu *c, u64 cur)
{
	u8 mask = htm_hv_dtl_mask(dtl->hv, c->cpu);

	if (READ_ONCE(paca_ptrs[c->cpu]->dispatch_log) !=
	    (c->kernel_owned ? c->log : NULL))
		return DTL_OTHER_LOG;
	if (cur < c->last)
		return DTL_OTHER_LOG;
	if (!c->kernel_owned && cur > c->last) {
		u64 tb;

		/* Entries below the index are whole (written before it). */
		smp_rmb();
		tb = be64_to_cpu(READ_ONCE(c->log[(cur - 1) %
						  DTL_ENTRIES].timebase));
		if (!tb || tb < c->last_tb)
			return DTL_OTHER_LOG;
	}
	return mask != dtl_cpu_our_mask(c) ? DTL_OTHER_MASK : 0;
}

/*
 * Wake the session's readers. In hard interrupt context (the capture timer,
 * the PMU's irq_work: both hard, also on PREEMPT_RT) the wait queue's lock,
 * a spinlock_t, may not be taken: the session's irq_work, which is not
 * hard, wakes them right after.
 */
static void dtl_wake(struct vpa_dtl *dtl)
{
	if (in_hardirq())
		irq_work_queue(&dtl->wake_work);
	else
		wake_up_interruptible(&dtl->wait);
}

/*
 * Push a CPU's pending records into its ring now if they fit: a reader
 * waiting for records must not wait for the CPU's next entry to get its
 * CPU records. A CPU with a sink puts them at its next poll while it
 * captures, and now once its capture ended (no poll comes then: the sink
 * must learn of a failure or a loss that ended it now, not when the event
 * is gone). A capture with a sink ends on its CPU, interrupts off. Caller
 * holds the CPU's lock.
 */
static void dtl_cpu_push(struct vpa_dtl *dtl, struct dtl_cpu *c)
{
	if (!c->sink) {
		dtl_flush_cpu(dtl, c);
	} else if (READ_ONCE(c->state) == HTMTRACE_DTL_CPU_ENDED &&
		   c->sink->begin(c->sink_arg, true)) {
		dtl_flush_cpu(dtl, c);
		c->sink->end(c->sink_arg, 0);
	}
}

/*
 * The CPU's capture is over: record why (@error: for
 * HTMTRACE_DTL_CPU_FAILED), and stop polling. @wake: wake the readers
 * (false in an IPI, where their wait queue's lock may not be taken: the
 * caller wakes them after).
 */
static void dtl_cpu_ended(struct vpa_dtl *dtl, struct dtl_cpu *c,
			  unsigned int why, int error, bool wake)
{
	struct dtl_pend *p;
	unsigned long flags;

	WRITE_ONCE(c->state, HTMTRACE_DTL_CPU_ENDED);
	raw_spin_lock_irqsave(&c->lock, flags);
	p = dtl_pend_cur(c);
	set_bit(why, &p->events);
	p->error = error;
	dtl_cpu_push(dtl, c);
	raw_spin_unlock_irqrestore(&c->lock, flags);
	if (wake)
		dtl_wake(dtl);
}

/**
 * struct dtl_take - what one poll copied from a CPU's log, before any of
 *	it goes out
 * @cur: the CPU's index the poll read up to
 * @from: the first entry of the CPU's @stage still valid after the copy
 * @n: entries copied into @stage
 * @over: entries the hypervisor overwrote before they were copied
 */
struct dtl_take {
	u64 cur;
	u64 from;
	u64 n;
	u64 over;
};

/*
 * A poll's first pass, the capture: the entries logged since the last
 * poll into c->stage, checked (the index after the copy says which the
 * hypervisor overwrote meanwhile; the log must still be ours, before and
 * after the copy). Nothing goes out yet. Return: false if another user
 * changed the log (c->other_change says how), else true, @t filled
 * (@t->cur == c->last: nothing new).
 */
static bool dtl_cpu_take(struct vpa_dtl *dtl, struct dtl_cpu *c,
			 struct dtl_take *t)
{
	u64 first, again, valid, gone, i;

	t->cur = htm_hv_dtl_index(dtl->hv, c->cpu);
	c->other_change = dtl_cpu_other_change(dtl, c, t->cur);
	if (c->other_change)
		return false;
	t->from = 0;
	t->n = 0;
	t->over = 0;
	if (t->cur == c->last)
		return true;

	/* Entries below the index are whole (the hypervisor wrote them first). */
	smp_rmb();
	dtl_span(c->last, t->cur, &first, &t->over);
	t->n = t->cur - first;
	for (i = 0; i < t->n; i++)
		c->stage[i] = c->log[(first + i) % DTL_ENTRIES];
	/* Entries overwritten while they were copied are not valid. */
	smp_rmb();
	again = htm_hv_dtl_index(dtl->hv, c->cpu);
	/*
	 * No second look at the kernel's log pointer: a kernel log is read
	 * only if it lives as long as the kernel (dtl_log_whose()), so the
	 * memory copied from is never freed.
	 */
	dtl_span(first, again, &valid, &gone);
	t->from = min(gone, t->n);
	/* The newest entry is valid unless all were overwritten. */
	if (t->from < t->n)
		c->last_tb = be64_to_cpu(c->stage[t->n - 1].timebase);
	t->over += t->from;
	c->logged += t->cur - c->last;
	return true;
}

/*
 * A poll's second pass, under the CPU's lock: what waits goes first, then
 * the entries taken, as records, into the sink or the ring; once one does
 * not fit, the rest of the poll is dropped too (and counted, for the
 * capture's LOST record). Return: the entries put.
 */
static u64 dtl_cpu_give(struct vpa_dtl *dtl, struct dtl_cpu *c,
			const struct dtl_take *t)
{
	struct htmtrace_dtl_entry_rec rec;
	u64 i, pushed = 0, dropped = 0;
	bool room, began = false;
	unsigned long flags;
	u64 t1, *lost;

	memset(&rec, 0, sizeof(rec));
	dtl_rec_init(&rec.hdr, HTMTRACE_DTL_REC_ENTRY, sizeof(rec), c->cpu);
	t1 = local_clock();
	raw_spin_lock_irqsave(&c->lock, flags);
	WRITE_ONCE(c->lock_wait_ns, c->lock_wait_ns + local_clock() - t1);
	/* This capture's losses (after older captures' records, if they wait). */
	lost = dtl_pend_cur(c)->lost;
	c->overwritten += t->over;
	lost[0] += t->over;
	if (c->sink) {
		began = c->sink->begin(c->sink_arg, false);
		room = began && dtl_flush_cpu(dtl, c);
	} else {
		room = dtl_flush_cpu(dtl, c);
	}
	for (i = t->from; i < t->n; i++) {
		memcpy(rec.entry, &c->stage[i], sizeof(rec.entry));
		room = room && dtl_put(dtl, c, &rec);
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
	raw_spin_unlock_irqrestore(&c->lock, flags);
	return pushed;
}

/*
 * Poll the CPU's log, in one pass each: capture (dtl_cpu_take()), then
 * the sink or the ring (dtl_cpu_give()), then wake the readers. @wake: as
 * for dtl_cpu_ended().
 *
 * Only a capture that is CAPTURING is polled, whichever path polls it (the
 * CPU's timer, the FLUSH IPI, the PMU's deadline poll, the end): once one
 * of them ended it (another user changed the log), the log is no longer
 * ours to read, its end record is out, and @other_change says what STOP
 * must not give back.
 */
static void dtl_cpu_poll_wake(struct vpa_dtl *dtl, struct dtl_cpu *c,
			      bool wake)
{
	u64 t0 = local_clock(), pushed;
	struct dtl_take t;

	if (READ_ONCE(c->state) != HTMTRACE_DTL_CPU_CAPTURING)
		return;
	if (!dtl_cpu_take(dtl, c, &t)) {
		dtl_cpu_ended(dtl, c, HTMTRACE_DTL_CPU_LOST, 0, wake);
		return;
	}
	if (t.cur == c->last)
		return;
	pushed = dtl_cpu_give(dtl, c, &t);
	WRITE_ONCE(c->last, t.cur);
	WRITE_ONCE(c->poll_ns, c->poll_ns + local_clock() - t0);
	if (wake && pushed && !c->sink)
		dtl_wake(dtl);
}

/*
 * Poll from the CPU's timer, or from anywhere with the timer cancelled (a
 * capture that is not CAPTURING is left alone).
 */
void dtl_cpu_poll(struct vpa_dtl *dtl, struct dtl_cpu *c)
{
	dtl_cpu_poll_wake(dtl, c, true);
}

static enum hrtimer_restart dtl_timer(struct hrtimer *timer)
{
	struct dtl_cpu *c = container_of(timer, struct dtl_cpu, timer);
	u32 fixed_us = READ_ONCE(dtl_period_us);
	u64 logged = c->logged, dropped = c->dropped;

	c->wakeups++;
	dtl_cpu_poll(c->dtl, c);
	if (READ_ONCE(c->state) != HTMTRACE_DTL_CPU_CAPTURING)
		return HRTIMER_NORESTART;
	/* A fixed period (dtl_period_us) is for comparisons: see make bench. */
	if (fixed_us)
		c->period_ns = (u64)fixed_us * NSEC_PER_USEC;
	else if (c->dropped != dropped)
		/* The ring is full and unread: polling faster saves nothing. */
		c->period_ns = DTL_PERIOD_MAX;
	else
		c->period_ns = dtl_next_period(c->period_ns,
					       c->logged - logged);
	hrtimer_forward_now(timer, ns_to_ktime(c->period_ns));
	return HRTIMER_RESTART;
}

/*
 * Begin capturing on the CPU we run on (bound to it, in process context).
 * Return: 0 or the errno of the registration (also in the stream).
 */
long dtl_cpu_begin(void *arg)
{
	struct dtl_cpu *c = arg;
	struct vpa_dtl *dtl = c->dtl;
	enum dtl_log_holder holder;
	struct dtl_entry *klog;
	unsigned long flags;
	int cpu = c->cpu, ret;

	/*
	 * The capture's records come after those of the captures before it
	 * (those may still wait for room, and a START may have come between).
	 */
	raw_spin_lock_irqsave(&c->lock, flags);
	dtl_pend_begin(c);
	raw_spin_unlock_irqrestore(&c->lock, flags);
	c->saved_mask = htm_hv_dtl_mask(dtl->hv, cpu);
	c->other_change = 0;
	c->last_tb = 0;
	/* The kernel's log pointer is read once: c->log is what we read. */
	klog = READ_ONCE(paca_ptrs[cpu]->dispatch_log);
	holder = dtl_log_whose(klog, DTL_KLOG_LASTS, c->saved_mask);
	if (holder == DTL_LOG_KERNEL) {
		/*
		 * Never register over the kernel's log, which lives as long as
		 * the kernel: read it alongside. The mask is set before the
		 * capture's first index is taken, so that every entry captured
		 * was logged under the whole mask.
		 */
		c->kernel_owned = true;
		htm_hv_dtl_set_mask(dtl->hv, cpu, c->saved_mask | c->mask);
		c->log = klog;
		c->last = htm_hv_dtl_index(dtl->hv, cpu);
	} else {
		c->kernel_owned = false;
		/*
		 * Another user's mask, or a kernel log that may be freed: not
		 * ours to take over or read (see configure).
		 */
		ret = holder == DTL_LOG_OTHER ? -EBUSY : 0;
		if (!ret) {
			memset(c->own, 0, DTL_BYTES);
			/* H_REGISTER_VPA reads the length from the second word. */
			((__be32 *)c->own)[1] = cpu_to_be32(DTL_BYTES);
			/* Registers, then resets the index to 0. */
			ret = htm_hv_dtl_register(dtl->hv, cpu, c->own);
		}
		if (ret) {
			dtl_cpu_ended(dtl, c, HTMTRACE_DTL_CPU_FAILED, ret, true);
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
	raw_spin_lock_irqsave(&c->lock, flags);
	set_bit(HTMTRACE_DTL_CPU_JOINED, &dtl_pend_cur(c)->events);
	dtl_cpu_push(dtl, c);
	raw_spin_unlock_irqrestore(&c->lock, flags);
	/* A CPU with a sink puts its records there: no reader waits for them. */
	if (!c->sink)
		dtl_wake(dtl);
	c->period_ns = DTL_PERIOD_START;
	hrtimer_start(&c->timer, ns_to_ktime(c->period_ns),
		      HRTIMER_MODE_REL_PINNED_HARD);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(dtl_cpu_begin);

/*
 * End capturing on a CPU (from any CPU): stop the timer, take what is left,
 * and give back what we changed (unless another user changed it since).
 * @why: HTMTRACE_DTL_CPU_OFFLINE, or 0 for the end of the session.
 */
void dtl_cpu_end(struct dtl_cpu *c, unsigned int why)
{
	struct vpa_dtl *dtl = c->dtl;
	int cpu = c->cpu, ret;

	hrtimer_cancel(&c->timer);
	dtl_cpu_poll(dtl, c);
	/* (unless that last poll ended it: a capture ends once) */
	if (why && READ_ONCE(c->state) == HTMTRACE_DTL_CPU_CAPTURING)
		dtl_cpu_ended(dtl, c, why, 0, true);
	/* The mask is given back only if it is still exactly what we set. */
	if (c->log && c->other_change != DTL_OTHER_LOG &&
	    htm_hv_dtl_mask(dtl->hv, cpu) == dtl_cpu_our_mask(c))
		htm_hv_dtl_set_mask(dtl->hv, cpu, c->saved_mask);
	if (c->log && !c->kernel_owned) {
		/* A log another user replaced is theirs to unregister. */
		ret = c->other_change == DTL_OTHER_LOG ? -EBUSY :
		      htm_hv_dtl_unregister(dtl->hv, cpu);
		if (ret)
			pr_warn("cpu%d: dispatch trace log buffer %s (%d): left allocated, the hypervisor may still write it\n",
				cpu, ret == -EBUSY ? "replaced by another user" :
				"not unregistered", ret);
		/* Registered again and unregistered since: ours to free. */
		c->own_registered = ret != 0;
	}
	c->log = NULL;
	if (READ_ONCE(c->state) == HTMTRACE_DTL_CPU_CAPTURING)
		WRITE_ONCE(c->state, HTMTRACE_DTL_CPU_WAITING);
	dtl_wake(dtl);
}
EXPORT_SYMBOL_IF_KUNIT(dtl_cpu_end);

/*
 * A CPU's capture, allocated and idle. Its timer is hard, also on
 * PREEMPT_RT: a poll runs with interrupts off, so that nothing else that
 * polls the CPU (the FLUSH IPI, the PMU's irq_work and deadline timer, all
 * hard too) interrupts it halfway through the CPU's @stage.
 */
void dtl_cpu_setup(struct vpa_dtl *dtl, struct dtl_cpu *c,
		   unsigned int cpu, u8 mask)
{
	c->dtl = dtl;
	c->cpu = cpu;
	c->mask = mask;
	c->pend_n = 1;
	raw_spin_lock_init(&c->lock);
	hrtimer_setup(&c->timer, dtl_timer, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_PINNED_HARD);
}

/*
 * On a CPU, interrupts off: so never beside its timer. An IPI is hard
 * interrupt context, where the readers' wait queue (a spinlock_t) may not
 * be taken: dtl_flush_now() wakes them once every CPU is done.
 */
void dtl_cpu_flush_ipi(void *arg)
{
	struct dtl_cpu *c = arg;

	dtl_cpu_poll_wake(c->dtl, c, false);
}
EXPORT_SYMBOL_IF_KUNIT(dtl_cpu_flush_ipi);
