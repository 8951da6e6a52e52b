// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace: the dispatch trace log session of /dev/vpa_dtl.
 *
 * One locked state machine (struct vpa_dtl): configure, start, stop, the
 * end (DECONFIGURE or the owner's close), reads, poll and the counters.
 * The session reads the logs of the selected CPUs (dtl_cpu.c) into one
 * stream of records (dtl_rec.c, dtl_ring.c).
 */
#define pr_fmt(fmt) "htmtrace: " fmt

#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/kmemleak.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include <asm/paca.h>

#include "htmtrace.h"
#include "dtl_internal.h"

/**
 * dtl_config_check() - check a configuration from the user
 * @cfg: HTMTRACE_IOC_DTL_CONFIGURE argument (its CPU mask is checked when
 *	it is copied in)
 * @ring_size: receives the session ring's size in bytes: the KiB asked for
 *	(or the default) rounded up to a power of two
 *
 * Return: 0 or -EINVAL (an unknown flag or a reserved field set, an event
 * mask of no or unknown events, a ring size out of range).
 */
int dtl_config_check(const struct htmtrace_dtl_config *cfg,
		     u32 *ring_size)
{
	u32 kb = cfg->ring_kb ?: DTL_RING_KB_DEFAULT;

	if (cfg->flags & ~HTMTRACE_DTL_F_KEEP || cfg->reserved[0] ||
	    cfg->reserved[1])
		return -EINVAL;
	if (!cfg->mask || cfg->mask & ~HTMTRACE_DTL_ALL)
		return -EINVAL;
	if (kb < DTL_RING_KB_MIN || kb > DTL_RING_KB_MAX)
		return -EINVAL;
	*ring_size = roundup_pow_of_two(kb) * 1024;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(dtl_config_check);

void dtl_free(struct vpa_dtl *dtl)
{
	unsigned int cpu;

	if (dtl->pcpu) {
		for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
			struct dtl_cpu *c = dtl->pcpu[cpu];

			if (!c)
				continue;
			/* Never freed, so not a leak for kmemleak either. */
			if (c->own_registered)
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

/*
 * In own-buffer mode (no kernel log), a CPU whose event mask is not 0 is
 * another user's (debugfs dtl, another tool): not ours to take over. The
 * hypervisor has no call that says whether a log is registered; a nonzero
 * mask is how every public user of the log shows it logs.
 */
static bool dtl_cpu_busy(const struct htmtrace_hv_ops *hv, int cpu)
{
	return !READ_ONCE(paca_ptrs[cpu]->dispatch_log) &&
	       htm_hv_dtl_mask(hv, cpu);
}

/**
 * dtl_configure() - claim the dispatch trace log for a session
 * @dtl: an idle session
 * @hv: backend
 * @cpus: the CPUs to capture (possible CPUs only)
 * @mask: HTMTRACE_DTL_* events
 * @ring_size: bytes of the session's ring, a power of two
 * @owner: the session ends when dtl_end() is called with it (the file
 *	that configured it), or NULL: only an explicit deconfigure ends it
 *
 * Return: 0, -EBUSY if a session exists (or perf events hold the log), or
 * a CPU without a kernel log has another user's event mask, -ENOMEM.
 */
int dtl_configure(struct vpa_dtl *dtl, const struct htmtrace_hv_ops *hv,
		  const struct cpumask *cpus, u8 mask, u32 ring_size,
		      const void *owner)
{
	unsigned int cpu;
	int ret = -ENOMEM;

	mutex_lock(&dtl->lock);
	if (dtl->state != DTL_IDLE) {
		mutex_unlock(&dtl->lock);
		return -EBUSY;
	}
	for_each_cpu_and(cpu, cpus, cpu_possible_mask) {
		if (dtl_cpu_busy(hv, cpu)) {
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
		struct dtl_cpu *c;

		c = kzalloc_node(sizeof(*c), GFP_KERNEL, cpu_to_node(cpu));
		if (!c)
			goto out;
		dtl->pcpu[cpu] = c;
		/* kmalloc() aligns a power-of-two size: 4 KiB, no crossing */
		c->own = kzalloc_node(DTL_BYTES, GFP_KERNEL,
				      cpu_to_node(cpu));
		if (!c->own)
			goto out;
		dtl_cpu_setup(dtl, c, cpu, mask);
	}
	dtl->hv = hv;
	dtl->ring.size = ring_size;
	dtl->ring.head = 0;
	dtl->ring.tail = 0;
	dtl->owner = owner;
	/* Pairs with dtl_read(): the ring and the CPUs before the state. */
	smp_store_release(&dtl->state, DTL_CONFIGURED);
	ret = 0;
out:
	if (ret)
		dtl_free(dtl);
	mutex_unlock(&dtl->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(dtl_configure);

/**
 * dtl_start() - begin capturing
 * @dtl: a configured or stopped session
 *
 * Each selected online CPU joins now, each selected offline CPU when it
 * comes online. A CPU whose registration fails says so in the stream; the
 * others go on.
 *
 * Return: 0 or -EBADFD in another state.
 */
int dtl_start(struct vpa_dtl *dtl)
{
	unsigned long flags;
	unsigned int cpu;
	int ret;

	cpus_read_lock();
	mutex_lock(&dtl->lock);
	if (dtl->state != DTL_CONFIGURED &&
	    dtl->state != DTL_STOPPED) {
		ret = -EBADFD;
		goto out;
	}
	ret = 0;
	raw_spin_lock_irqsave(&dtl->ring_lock, flags);
	/*
	 * What the last captures left goes out first; what finds no room
	 * waits, marked as theirs, before this START's clock record.
	 */
	dtl_flush(dtl, NULL);
	for_each_cpu(cpu, dtl->cpus)
		dtl->pcpu[cpu]->prev_pending =
			dtl_cpu_pending(dtl->pcpu[cpu]);
	dtl->clock_pending = true;
	dtl_flush(dtl, NULL);
	raw_spin_unlock_irqrestore(&dtl->ring_lock, flags);
	/* Pairs with dtl_read()'s acquire, as every state change does. */
	smp_store_release(&dtl->state, DTL_RUNNING);
	for_each_cpu(cpu, dtl->cpus) {
		struct dtl_cpu *c = dtl->pcpu[cpu];

		WRITE_ONCE(c->state, HTMTRACE_DTL_CPU_WAITING);
		if (cpu_online(cpu))
			work_on_cpu(cpu, dtl_cpu_begin, c);
	}
	wake_up_interruptible(&dtl->wait);
out:
	mutex_unlock(&dtl->lock);
	cpus_read_unlock();
	return ret;
}

/* End every CPU's capture; @dtl->lock held, the session running. */
static void dtl_stop_locked(struct vpa_dtl *dtl)
{
	unsigned int cpu;

	lockdep_assert_held(&dtl->lock);
	/* The timer is cancelled first, so no poll runs alongside. */
	for_each_cpu(cpu, dtl->cpus)
		dtl_cpu_end(dtl->pcpu[cpu], 0);
	/* Pairs with dtl_read(): the last entries are in before STOPPED. */
	smp_store_release(&dtl->state, DTL_STOPPED);
	wake_up_interruptible_all(&dtl->wait);
}

/**
 * dtl_stop() - end capturing
 * @dtl: session
 *
 * Every CPU's log and mask is given back; what was captured stays readable,
 * and read() returns 0 once it is drained.
 *
 * Return: 0 (stopping a stopped session too), or -EBADFD if never started.
 */
int dtl_stop(struct vpa_dtl *dtl)
{
	int ret = 0;

	cpus_read_lock();
	mutex_lock(&dtl->lock);
	if (dtl->state == DTL_RUNNING)
		dtl_stop_locked(dtl);
	else if (dtl->state != DTL_STOPPED)
		ret = -EBADFD;
	mutex_unlock(&dtl->lock);
	cpus_read_unlock();
	return ret;
}

/**
 * dtl_end() - end the session, stopping it first
 * @dtl: session
 * @owner: NULL to end the session whoever configured it (DECONFIGURE), or
 *	a closing file: the session ends only if that file configured it
 *	without HTMTRACE_DTL_F_KEEP
 *
 * One transition: the state is checked and changed under the locks, in
 * their order (see struct vpa_dtl), so that of two calls at once exactly
 * one ends the session, and nothing starts it in between. A reader copying
 * out of the ring meanwhile keeps it, and frees it (dtl_read_done()).
 *
 * Return: 0 if this call ended the session, -EINTR if a DECONFIGURE was
 * killed while it waited for the read lock, else -EBADFD.
 */
int dtl_end(struct vpa_dtl *dtl, const void *owner)
{
	int ret = -EBADFD;

	if (!owner) {
		if (mutex_lock_killable(&dtl->read_lock))
			return -EINTR;
	} else {
		mutex_lock(&dtl->read_lock);
	}
	cpus_read_lock();
	mutex_lock(&dtl->lock);
	if (dtl->state != DTL_CONFIGURED &&
	    dtl->state != DTL_RUNNING && dtl->state != DTL_STOPPED)
		goto out;
	if (owner && dtl->owner != owner)
		goto out;
	if (dtl->state == DTL_RUNNING)
		dtl_stop_locked(dtl);
	/* The state first: a lockless poll() reads it, never the ring. */
	smp_store_release(&dtl->state, DTL_IDLE);
	/* (A ring orphaned before is the one the reader copies from.) */
	if (dtl->reading && !dtl->read_orphan) {
		dtl->read_orphan = dtl->ring.buf;
		dtl->ring.buf = NULL;
	}
	dtl_free(dtl);
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
EXPORT_SYMBOL_IF_KUNIT(dtl_end);

/**
 * dtl_flush_now() - copy every CPU's log into the stream now
 * @dtl: session
 *
 * Bounds the delivery latency for a reader that needs it: the entries
 * logged before the call are in the stream (or counted lost) when it
 * returns, and so is every record that was waiting for room, if it fits.
 *
 * Return: 0, or -EBADFD if the session is not running.
 */
int dtl_flush_now(struct vpa_dtl *dtl)
{
	unsigned long flags;
	unsigned int cpu;
	int ret = 0;

	cpus_read_lock();
	mutex_lock(&dtl->lock);
	if (dtl->state != DTL_RUNNING) {
		ret = -EBADFD;
		goto out;
	}
	for_each_cpu_and(cpu, dtl->cpus, cpu_online_mask)
		smp_call_function_single(cpu, dtl_cpu_flush_ipi,
					 dtl->pcpu[cpu], 1);
	raw_spin_lock_irqsave(&dtl->ring_lock, flags);
	dtl_flush(dtl, NULL);
	raw_spin_unlock_irqrestore(&dtl->ring_lock, flags);
	wake_up_interruptible(&dtl->wait);
out:
	mutex_unlock(&dtl->lock);
	cpus_read_unlock();
	return ret;
}

/*
 * Has the reader something to read (and no other reader is copying), or is
 * the stream over?
 */
static bool dtl_readable(struct vpa_dtl *dtl)
{
	u32 state = READ_ONCE(dtl->state);

	if (state == DTL_IDLE || state == DTL_PMU)
		return true;
	if (READ_ONCE(dtl->reading))
		return false;
	return READ_ONCE(dtl->ring.head) != READ_ONCE(dtl->ring.tail) ||
	       state == DTL_STOPPED;
}

/**
 * dtl_read_claim() - claim the whole records at the ring's tail for a read
 * @dtl: session
 * @count: room the reader has
 * @nonblock: O_NONBLOCK
 * @from: receives the ring as it is (its buffer, size and tail): what the
 *	reader copies from, without a lock, before dtl_read_done()
 *
 * One reader copies at a time: another waits (or gets -EAGAIN) until
 * dtl_read_done(). No lock is held on return.
 *
 * Return: bytes claimed, of whole records; 0 once the session is stopped
 * and the stream drained; -ENODATA if there is no session; -EINVAL if
 * @count cannot hold the next record; -EAGAIN, -ERESTARTSYS.
 */
ssize_t dtl_read_claim(struct vpa_dtl *dtl, size_t count, bool nonblock,
		       struct dtl_ring *from)
{
	unsigned long flags;
	ssize_t ret;
	u32 len, state;
	u64 head;

	if (mutex_lock_interruptible(&dtl->read_lock))
		return -ERESTARTSYS;
	for (;;) {
		/*
		 * The state first: STOPPED is set after the last entries are
		 * in, so an empty ring then means the end of the stream.
		 */
		state = smp_load_acquire(&dtl->state);
		ret = -ENODATA;
		if (state == DTL_IDLE || state == DTL_PMU)
			goto out;
		if (!dtl->reading) {
			raw_spin_lock_irqsave(&dtl->ring_lock, flags);
			/* What is pending goes out first, now that there may be room. */
			dtl_flush(dtl, NULL);
			head = dtl->ring.head;
			raw_spin_unlock_irqrestore(&dtl->ring_lock, flags);
			/* The walk, up to the whole ring, under no lock. */
			len = dtl_ring_whole(&dtl->ring, head, count);
			if (len)
				break;
			ret = -EINVAL;
			if (head != dtl->ring.tail)
				goto out;
			ret = 0;
			if (state == DTL_STOPPED)
				goto out;
		}
		ret = -EAGAIN;
		if (nonblock)
			goto out;
		mutex_unlock(&dtl->read_lock);
		if (wait_event_interruptible(dtl->wait, dtl_readable(dtl)))
			return -ERESTARTSYS;
		if (mutex_lock_interruptible(&dtl->read_lock))
			return -ERESTARTSYS;
	}
	WRITE_ONCE(dtl->reading, true);
	*from = dtl->ring;
	ret = len;
out:
	mutex_unlock(&dtl->read_lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(dtl_read_claim);

/**
 * dtl_read_done() - a read's copy is over
 * @dtl: session
 * @ret: the read's answer: the @len bytes claimed, or -EFAULT if the copy
 *	failed (the records stay for the next read)
 * @len: bytes dtl_read_claim() claimed
 *
 * Consumes what was copied. If the session ended meanwhile, its ring was
 * left to this reader: it is freed now, and the copy stands.
 *
 * Return: @ret.
 */
ssize_t dtl_read_done(struct vpa_dtl *dtl, ssize_t ret, u32 len)
{
	unsigned long flags;

	mutex_lock(&dtl->read_lock);
	WRITE_ONCE(dtl->reading, false);
	if (dtl->read_orphan) {
		kvfree(dtl->read_orphan);
		dtl->read_orphan = NULL;
	} else if (ret > 0) {
		raw_spin_lock_irqsave(&dtl->ring_lock, flags);
		dtl->ring.tail += len;
		dtl_flush(dtl, NULL);
		raw_spin_unlock_irqrestore(&dtl->ring_lock, flags);
	}
	mutex_unlock(&dtl->read_lock);
	/* Another reader may wait for this one. */
	wake_up_interruptible(&dtl->wait);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(dtl_read_done);

/**
 * dtl_read() - read whole records of the stream
 * @dtl: session
 * @ubuf: user buffer
 * @count: its size
 * @nonblock: O_NONBLOCK
 *
 * The copy to the user holds no lock: a page fault that never resolves
 * (userfaultfd, FUSE) holds up other readers only (interruptibly), never
 * the end of the session.
 *
 * Return: as dtl_read_claim(), or -EFAULT.
 */
ssize_t dtl_read(struct vpa_dtl *dtl, char __user *ubuf, size_t count,
		 bool nonblock)
{
	struct dtl_ring from;
	ssize_t len;

	len = dtl_read_claim(dtl, count, nonblock, &from);
	if (len <= 0)
		return len;
	return dtl_read_done(dtl, dtl_ring_copy(&from, ubuf, len) ?
			     -EFAULT : len, len);
}
EXPORT_SYMBOL_IF_KUNIT(dtl_read);

/**
 * dtl_poll_mask() - what poll() reports (no lock needed)
 * @dtl: session
 *
 * Return: EPOLLIN | EPOLLRDNORM when a record is ready or the stream is
 * over (EPOLLHUP too then); EPOLLERR | EPOLLHUP without a session.
 */
__poll_t dtl_poll_mask(struct vpa_dtl *dtl)
{
	u32 state = READ_ONCE(dtl->state);

	if (state == DTL_IDLE || state == DTL_PMU)
		return EPOLLERR | EPOLLHUP;
	if (READ_ONCE(dtl->ring.head) != READ_ONCE(dtl->ring.tail))
		return EPOLLIN | EPOLLRDNORM;
	if (state == DTL_STOPPED)
		return EPOLLIN | EPOLLRDNORM | EPOLLHUP;
	return 0;
}

/**
 * dtl_stats() - the per-CPU counters
 * @dtl: session
 * @out: array to fill
 * @max: its length
 * @count: receives the number of CPUs in the session
 *
 * Return: 0, -ENOSPC if @max is less than @count (nothing stored),
 * -ENODATA without a session.
 */
int dtl_stats(struct vpa_dtl *dtl, struct htmtrace_dtl_cpu_stats *out,
	      u32 max, u32 *count)
{
	unsigned int cpu, n = 0;
	int ret = 0;

	mutex_lock(&dtl->lock);
	if (dtl->state == DTL_IDLE || dtl->state == DTL_PMU) {
		ret = -ENODATA;
		goto out;
	}
	*count = cpumask_weight(dtl->cpus);
	if (*count > max) {
		ret = -ENOSPC;
		goto out;
	}
	for_each_cpu(cpu, dtl->cpus) {
		const struct dtl_cpu *c = dtl->pcpu[cpu];

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
