// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace: the dispatch trace log session of /dev/vpa_dtl.
 *
 * One locked state machine (struct vpa_dtl): configure, start, stop, the
 * end (DECONFIGURE or the owner's close), reads, poll and the counters.
 * The session reads the logs of the selected CPUs (dtl_cpu.c), each into a
 * ring of records of its own (dtl_rec.c, dtl_ring.c); the reader takes the
 * CPUs' records in turn, into one stream.
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
			kvfree(c->ring.buf);
			kfree(c);
		}
	}
	kfree(dtl->pcpu);
	dtl->pcpu = NULL;
	free_cpumask_var(dtl->cpus);
}

/**
 * dtl_log_whose() - who holds a CPU's dispatch trace log
 * @klog: the kernel has a log for the CPU (paca dispatch_log)
 * @klog_lasts: the kernel's logs live as long as it does (DTL_KLOG_LASTS)
 * @mask: the CPU's event mask
 *
 * A kernel log that lives as long as the kernel (the native accounting's)
 * is shared: read alongside, never registered over. One the kernel may
 * free (vcpudispatch_stats's, without the native accounting) is another
 * user's: it is freed under a lock modules cannot take, so reading it
 * could read freed memory; mainline's vpa-dtl.c takes that lock and
 * refuses too. Without a kernel log, a CPU whose event mask is not 0 is
 * another user's (debugfs dtl, another tool): the hypervisor has no call
 * that says whether a log is registered, and a nonzero mask is how every
 * public user of the log shows it logs.
 *
 * Return: DTL_LOG_KERNEL, DTL_LOG_OTHER, or DTL_LOG_FREE (no one's).
 */
enum dtl_log_holder dtl_log_whose(bool klog, bool klog_lasts, u8 mask)
{
	if (klog)
		return klog_lasts ? DTL_LOG_KERNEL : DTL_LOG_OTHER;
	return mask ? DTL_LOG_OTHER : DTL_LOG_FREE;
}
EXPORT_SYMBOL_IF_KUNIT(dtl_log_whose);

/**
 * dtl_cpu_busy() - is a CPU's log another user's?
 * @hv: backend
 * @cpu: a possible CPU
 *
 * Return: true if a capture of the CPU would fail with -EBUSY now
 * (dtl_log_whose()).
 */
bool dtl_cpu_busy(const struct htmtrace_hv_ops *hv, int cpu)
{
	bool klog = READ_ONCE(paca_ptrs[cpu]->dispatch_log);

	/* (The mask says nothing where the kernel has a log.) */
	return dtl_log_whose(klog, DTL_KLOG_LASTS,
			     klog ? 0 : htm_hv_dtl_mask(hv, cpu)) ==
	       DTL_LOG_OTHER;
}

/**
 * dtl_cpu_ring_size() - a CPU's share of the session's ring
 * @ring_size: bytes of the session's ring, a power of two
 * @ncpus: the CPUs selected, at least one
 *
 * Return: @ring_size shared evenly, rounded down to a power of two, and at
 * least DTL_CPU_RING_MIN (a CPU record and 72 entries).
 */
u32 dtl_cpu_ring_size(u32 ring_size, unsigned int ncpus)
{
	u32 share = ring_size / max(ncpus, 1U);

	return share < DTL_CPU_RING_MIN ? DTL_CPU_RING_MIN :
	       rounddown_pow_of_two(share);
}
EXPORT_SYMBOL_IF_KUNIT(dtl_cpu_ring_size);

/**
 * dtl_configure() - claim the dispatch trace log for a session
 * @dtl: an idle session
 * @hv: backend
 * @cpus: the CPUs to capture (possible CPUs only)
 * @mask: HTMTRACE_DTL_* events
 * @ring_size: bytes of the session's ring, a power of two, shared among
 *	the CPUs (dtl_cpu_ring_size())
 * @owner: the session ends when dtl_end() is called with it (the file
 *	that configured it), or NULL: only an explicit deconfigure ends it
 *
 * Return: 0, -EBUSY if a session exists (or perf events hold the log), or
 * a CPU's log is another user's (dtl_cpu_busy()), -ENOMEM.
 */
int dtl_configure(struct vpa_dtl *dtl, const struct htmtrace_hv_ops *hv,
		  const struct cpumask *cpus, u8 mask, u32 ring_size,
		      const void *owner)
{
	unsigned int cpu;
	u32 share;
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
	share = dtl_cpu_ring_size(ring_size, cpumask_weight(dtl->cpus));
	dtl->pcpu = kcalloc(nr_cpu_ids, sizeof(*dtl->pcpu), GFP_KERNEL);
	if (!dtl->pcpu)
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
		c->ring.buf = kvmalloc_node(share, GFP_KERNEL, cpu_to_node(cpu));
		if (!c->ring.buf)
			goto out;
		c->ring.size = share;
		dtl_cpu_setup(dtl, c, cpu, mask);
	}
	dtl->hv = hv;
	atomic_set(&dtl->filled, 0);
	dtl->clock_first = 0;
	dtl->clock_last = 0;
	dtl->read_next = 0;
	dtl->owner = owner;
	/* Pairs with dtl_read(): the CPUs and their rings before the state. */
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
 * dtl_start_clock() - the clock record of a START
 * @dtl: session, its read lock held
 *
 * The record goes into the stream after each CPU's records of the captures
 * before the START. What those left pending goes into the CPU's ring
 * first, if it fits; what does not waits, marked as theirs (@gens short of
 * @gens_due), and the START's records begin after it (@gen_head). If
 * DTL_CLOCKS STARTs' clock records are still unread, this START shares
 * the last one's: the records of both come after it.
 */
void dtl_start_clock(struct vpa_dtl *dtl)
{
	u32 g = dtl->clock_last;
	unsigned long flags;
	unsigned int cpu;

	lockdep_assert_held(&dtl->read_lock);
	if (g - dtl->clock_first == DTL_CLOCKS)
		return;
	dtl_clock_now(&dtl->clocks[g % DTL_CLOCKS]);
	for_each_cpu(cpu, dtl->cpus) {
		struct dtl_cpu *c = dtl->pcpu[cpu];

		raw_spin_lock_irqsave(&c->lock, flags);
		c->gens_due = g + 1;
		dtl_flush_cpu(dtl, c);
		raw_spin_unlock_irqrestore(&c->lock, flags);
	}
	WRITE_ONCE(dtl->clock_last, g + 1);
}
EXPORT_SYMBOL_IF_KUNIT(dtl_start_clock);

/**
 * dtl_start() - begin capturing
 * @dtl: a configured or stopped session
 *
 * Each selected online CPU joins now, each selected offline CPU when it
 * comes online. A CPU whose registration fails says so in the stream; the
 * others go on.
 *
 * Return: 0, -EBADFD in another state, -EINTR if killed while it waited
 * for a reader's claim.
 */
int dtl_start(struct vpa_dtl *dtl)
{
	unsigned int cpu;
	int ret;

	if (mutex_lock_killable(&dtl->read_lock))
		return -EINTR;
	cpus_read_lock();
	mutex_lock(&dtl->lock);
	if (dtl->state != DTL_CONFIGURED &&
	    dtl->state != DTL_STOPPED) {
		ret = -EBADFD;
		goto out;
	}
	ret = 0;
	dtl_start_clock(dtl);
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
	mutex_unlock(&dtl->read_lock);
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
 * out of a CPU's ring meanwhile is detached from the session: it keeps
 * that ring, and frees it (dtl_read_done()), and the readers of the next
 * session do not wait for it.
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
	/* The state first: a lockless poll() reads it, never a CPU. */
	smp_store_release(&dtl->state, DTL_IDLE);
	/*
	 * A reader still copying (its page fault may never resolve) is this
	 * session's alone: it keeps the ring it copies from, and its claim's
	 * generation is no longer the readers' (dtl_read_done()).
	 */
	if (dtl->reading) {
		if (dtl->read_cpu >= 0)
			dtl->pcpu[dtl->read_cpu]->ring.buf = NULL;
		WRITE_ONCE(dtl->reading, false);
		dtl->read_gen++;
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
	struct dtl_cpu *c;

	cpus_read_lock();
	mutex_lock(&dtl->lock);
	if (dtl->state != DTL_RUNNING) {
		ret = -EBADFD;
		goto out;
	}
	for_each_cpu_and(cpu, dtl->cpus, cpu_online_mask)
		smp_call_function_single(cpu, dtl_cpu_flush_ipi,
					 dtl->pcpu[cpu], 1);
	/* (and an offline CPU's records that waited for room) */
	for_each_cpu(cpu, dtl->cpus) {
		c = dtl->pcpu[cpu];
		raw_spin_lock_irqsave(&c->lock, flags);
		dtl_flush_cpu(dtl, c);
		raw_spin_unlock_irqrestore(&c->lock, flags);
	}
	wake_up_interruptible(&dtl->wait);
out:
	mutex_unlock(&dtl->lock);
	cpus_read_unlock();
	return ret;
}

/*
 * What a read would find now, without a lock: EPOLLIN (EPOLLHUP too once
 * the stream is over) if it would not wait; EPOLLERR | EPOLLHUP without a
 * session; 0 if it would wait: nothing is ready, or another reader is
 * copying (a read waits for it, O_NONBLOCK gets -EAGAIN). One answer for
 * poll() and for the readers' wait, so that the two never disagree.
 */
static __poll_t dtl_ready(struct vpa_dtl *dtl)
{
	u32 state = READ_ONCE(dtl->state);

	if (state == DTL_IDLE || state == DTL_PMU)
		return EPOLLERR | EPOLLHUP;
	if (READ_ONCE(dtl->reading))
		return 0;
	if (atomic_read(&dtl->filled) ||
	    READ_ONCE(dtl->clock_first) != READ_ONCE(dtl->clock_last))
		return EPOLLIN | EPOLLRDNORM;
	if (state == DTL_STOPPED)
		return EPOLLIN | EPOLLRDNORM | EPOLLHUP;
	return 0;
}

/*
 * The CPU whose records a read takes next: the first from @read_next on
 * with records it may read, up to @end. While a START's clock record is
 * unread, that is only records of the captures before that START (up to
 * its @gen_head, or all of a CPU's while records of those captures wait
 * for room). NULL if there is none: then the clock record, if unread, is
 * next. What waits for room goes into a CPU's ring first, now that there
 * may be room (a CPU with records waiting has some in its ring: they found
 * no room). Caller holds the read lock.
 */
static struct dtl_cpu *dtl_read_next(struct vpa_dtl *dtl, u64 *end)
{
	u32 g = dtl->clock_first;
	unsigned long flags;
	unsigned int cpu;
	struct dtl_cpu *c;

	for_each_cpu_wrap(cpu, dtl->cpus, dtl->read_next) {
		c = dtl->pcpu[cpu];
		if (READ_ONCE(c->ring.head) == c->ring.tail)
			continue;
		raw_spin_lock_irqsave(&c->lock, flags);
		dtl_flush_cpu(dtl, c);
		/*
		 * START g's place in the ring is known once @gens passed g
		 * (it is never below g: a START's clock record is read only
		 * once every CPU's place for it is known).
		 */
		if (g != dtl->clock_last && c->gens != g)
			*end = c->gen_head[g % DTL_CLOCKS];
		else
			*end = c->ring.head;
		raw_spin_unlock_irqrestore(&c->lock, flags);
		if (*end != c->ring.tail)
			return c;
	}
	return NULL;
}

/**
 * dtl_read_claim() - claim the next whole records of the stream for a read
 * @dtl: session
 * @count: room the reader has
 * @nonblock: O_NONBLOCK
 * @claim: receives what to copy: the session's clock record, or a CPU's
 *	records (its ring as it is: buffer, size and tail), which the reader
 *	copies without a lock before dtl_read_done()
 *
 * One reader copies at a time: another waits (or gets -EAGAIN) until
 * dtl_read_done(). No lock is held on return.
 *
 * Return: bytes claimed, of whole records; 0 once the session is stopped
 * and the stream drained; -ENODATA if there is no session; -EINVAL if
 * @count cannot hold the next record; -EAGAIN, -ERESTARTSYS.
 */
ssize_t dtl_read_claim(struct vpa_dtl *dtl, size_t count, bool nonblock,
		       struct dtl_claim *claim)
{
	struct dtl_cpu *c;
	ssize_t ret;
	u32 state;
	u64 end;

	if (mutex_lock_interruptible(&dtl->read_lock))
		return -ERESTARTSYS;
	for (;;) {
		/*
		 * The state first: STOPPED is set after the last entries are
		 * in, so that nothing to read then means the end of the
		 * stream.
		 */
		state = smp_load_acquire(&dtl->state);
		ret = -ENODATA;
		if (state == DTL_IDLE || state == DTL_PMU)
			goto out;
		if (!dtl->reading) {
			c = dtl_read_next(dtl, &end);
			ret = -EINVAL;
			if (c) {
				/* The walk, up to the whole ring, under no lock. */
				claim->len = dtl_ring_whole(&c->ring, end, count);
				if (!claim->len)
					goto out;
				claim->cpu = c->cpu;
				/* Not the head: the CPU's capture moves it. */
				claim->from.buf = c->ring.buf;
				claim->from.size = c->ring.size;
				claim->from.tail = c->ring.tail;
				claim->from.head = 0;
				break;
			}
			if (dtl->clock_first != dtl->clock_last) {
				if (count < sizeof(claim->clock))
					goto out;
				claim->len = sizeof(claim->clock);
				claim->cpu = -1;
				claim->clock = dtl->clocks[dtl->clock_first %
							   DTL_CLOCKS];
				break;
			}
			ret = 0;
			if (state == DTL_STOPPED)
				goto out;
		}
		ret = -EAGAIN;
		if (nonblock)
			goto out;
		mutex_unlock(&dtl->read_lock);
		if (wait_event_interruptible(dtl->wait, dtl_ready(dtl)))
			return -ERESTARTSYS;
		if (mutex_lock_interruptible(&dtl->read_lock))
			return -ERESTARTSYS;
	}
	WRITE_ONCE(dtl->reading, true);
	dtl->read_cpu = claim->cpu;
	claim->gen = dtl->read_gen;
	ret = claim->len;
out:
	mutex_unlock(&dtl->read_lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(dtl_read_claim);

/**
 * dtl_read_done() - a read's copy is over
 * @dtl: session
 * @ret: the read's answer: the bytes claimed, or -EFAULT if the copy
 *	failed (the records stay for the next read)
 * @claim: what dtl_read_claim() claimed
 *
 * Consumes what was copied, and lets the CPU's records that waited for
 * room into its ring. If the session ended meanwhile, this reader was
 * detached from it (dtl_end()) and the ring copied from left to it: the
 * ring is freed now, the copy stands, and nothing of the sessions since
 * is touched.
 *
 * Return: @ret.
 */
ssize_t dtl_read_done(struct vpa_dtl *dtl, ssize_t ret,
		      const struct dtl_claim *claim)
{
	unsigned long flags;
	struct dtl_cpu *c;

	mutex_lock(&dtl->read_lock);
	if (claim->gen != dtl->read_gen) {
		if (claim->cpu >= 0)
			kvfree(claim->from.buf);
		mutex_unlock(&dtl->read_lock);
		return ret;
	}
	WRITE_ONCE(dtl->reading, false);
	if (ret > 0 && claim->cpu < 0) {
		WRITE_ONCE(dtl->clock_first, dtl->clock_first + 1);
	} else if (ret > 0) {
		c = dtl->pcpu[claim->cpu];
		raw_spin_lock_irqsave(&c->lock, flags);
		c->ring.tail += claim->len;
		if (c->ring.tail == c->ring.head)
			atomic_dec(&dtl->filled);
		dtl_flush_cpu(dtl, c);
		raw_spin_unlock_irqrestore(&c->lock, flags);
		/* The next read begins with the next CPU's records. */
		dtl->read_next = claim->cpu + 1;
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
 * A round a CPU: its records (or the clock record) are claimed, copied and
 * consumed, then the next CPU's, while there is room and records are ready,
 * for at most one round more than there are CPUs. Only the first round
 * blocks. The copy to the user
 * holds no lock: a page fault that never resolves (userfaultfd, FUSE) holds
 * up other readers only (interruptibly), never the end of the session.
 *
 * Return: bytes read; if none, as dtl_read_claim(), or -EFAULT.
 */
ssize_t dtl_read(struct vpa_dtl *dtl, char __user *ubuf, size_t count,
		 bool nonblock)
{
	struct dtl_claim claim;
	unsigned int round;
	unsigned long left;
	ssize_t len, done = 0;

	for (round = 0; round <= nr_cpu_ids && done < count; round++) {
		len = dtl_read_claim(dtl, count - done, nonblock || done,
				     &claim);
		if (len <= 0)
			return done ?: len;
		if (claim.cpu < 0)
			left = copy_to_user(ubuf + done, &claim.clock, len);
		else
			left = dtl_ring_copy(&claim.from, ubuf + done, len);
		len = dtl_read_done(dtl, left ? -EFAULT : len, &claim);
		if (len < 0)
			return done ?: len;
		done += len;
		/*
		 * Its session ended during the copy (the reader was detached):
		 * no record of the next session joins this read.
		 */
		if (claim.gen != READ_ONCE(dtl->read_gen))
			break;
	}
	return done;
}
EXPORT_SYMBOL_IF_KUNIT(dtl_read);

/**
 * dtl_poll_mask() - what poll() reports (no lock needed)
 * @dtl: session
 *
 * Return: EPOLLIN | EPOLLRDNORM when a record is ready or the stream is
 * over (EPOLLHUP too then), and no other reader is copying (a read would
 * wait for it: O_NONBLOCK gets -EAGAIN); EPOLLERR | EPOLLHUP without a
 * session; else 0.
 */
__poll_t dtl_poll_mask(struct vpa_dtl *dtl)
{
	return dtl_ready(dtl);
}
EXPORT_SYMBOL_IF_KUNIT(dtl_poll_mask);

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
		out[n].folded = READ_ONCE(c->folded);
		out[n].next_index = READ_ONCE(c->last);
		n++;
	}
out:
	mutex_unlock(&dtl->lock);
	return ret;
}
