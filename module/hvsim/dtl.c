// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace_hvsim: the simulated dispatch trace log.
 *
 * The simulator logs dispatch events the way the hypervisor does: on the
 * CPU itself, while nothing else runs there (a pinned hard-interrupt timer,
 * or an IPI for a burst), into whichever log is registered for the CPU - a
 * buffer registered through the backend's register_dtl, else the kernel's
 * own (paca dispatch_log) - then advances the CPU's real lppaca dtl_idx.
 * It honours the real dtl_enable_mask: event n of a CPU, of the type
 * hvsim_dtl_type(cpu, n), is logged only if the mask has that type's bit.
 * What it logs is hvsim_dtl_fill() (hvsim_record.h).
 *
 * debugfs, in htmtrace_hvsim/:
 *	dtl_rate	events per second per online CPU (0: none)
 *	dtl_burst	write "CPU COUNT": COUNT events on CPU at once
 *	dtl_register_rc	status register_dtl answers instead of H_SUCCESS
 *	dtl_register_log events logged on the CPU at each registration,
 *			after the hypervisor's H_REGISTER_VPA and before the
 *			partition resets the index (a dispatch in between)
 *	dtl_meddle	write "CPU MASK": set the CPU's event mask as another
 *			user of the log would (debugfs dtl, vcpudispatch_stats)
 *	dtl_thief	write "CPU COUNT": another user registers a buffer of
 *			its own for CPU (its index reset to 0), and COUNT
 *			events are logged there
 *	dtl_cpus	per CPU: where it logs and what it logged
 */
#define pr_fmt(fmt) "htmtrace_hvsim: " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/debugfs.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>

#include <asm/dtl.h>
#include <asm/hvcall.h>
#include <asm/lppaca.h>
#include <asm/paca.h>
#include <asm/smp.h>
#include <asm/time.h>

#include <linux/htmtrace.h>
#include "compat.h"
#include "hvsim/hvsim.h"
#include "hvsim/hvsim_record.h"

/* The timer's period, and the most events one run logs. */
#define HVSIM_DTL_TICK_NS	NSEC_PER_MSEC
#define HVSIM_DTL_MAX_PER_TICK	1000
#define HVSIM_DTL_RATE_MAX	1000000ULL
#define HVSIM_DTL_BURST_MAX	100000U

/**
 * struct hvsim_dtl_cpu - one CPU's simulated log
 * @cpu: logical CPU
 * @timer: logs at dtl_rate while it runs
 * @last: when the timer last ran
 * @carry: nanoseconds times events per second not yet logged
 * @registered: the buffer registered through register_dtl, or NULL
 * @thief: another user's buffer (dtl_thief), kept until unload
 * @entries: its capacity in entries
 * @events: events so far (n of the next one)
 * @written: entries logged
 * @filtered: events the CPU's mask left out
 * @unlogged: events with no log to go to
 * @stolen: ticks of stolen time the logged entries report
 * @unscanned: ticks of stolen time in kernel-log entries overwritten before
 *	the kernel scanned them (its steal accounting skips what it missed)
 */
struct hvsim_dtl_cpu {
	int cpu;
	struct hrtimer timer;
	ktime_t last;
	u64 carry;
	struct dtl_entry *registered;
	struct dtl_entry *thief;
	u32 entries;
	u64 events;
	u64 written;
	u64 filtered;
	u64 unlogged;
	u64 stolen;
	u64 unscanned;
};

/* Guards every hvsim_dtl_cpu and the knobs; taken with interrupts off. */
static DEFINE_RAW_SPINLOCK(hvsim_dtl_lock);
static struct hvsim_dtl_cpu *hvsim_dtl_cpus;
static u64 hvsim_dtl_rate;
static s64 hvsim_dtl_register_rc;
static u32 hvsim_dtl_register_log;
static int hvsim_dtl_hp_state;

/* Log the CPU's next event. On the CPU, hvsim_dtl_lock held. */
static void hvsim_dtl_log(struct hvsim_dtl_cpu *d)
{
	struct lppaca *vpa = paca_ptrs[d->cpu]->lppaca_ptr;
	struct dtl_entry *log = d->registered;
	u32 nent = d->entries;
	u64 n = d->events++, idx;
	bool kernel_log = false;

	if (!(READ_ONCE(vpa->dtl_enable_mask) & hvsim_dtl_type(d->cpu, n))) {
		d->filtered++;
		return;
	}
	if (!log) {
		log = READ_ONCE(paca_ptrs[d->cpu]->dispatch_log);
		nent = N_DISPATCH_LOG;
		kernel_log = true;
	}
	if (!log) {
		d->unlogged++;
		return;
	}
	idx = be64_to_cpu(READ_ONCE(vpa->dtl_idx));
	/*
	 * The kernel scans its log with interrupts off on this CPU, so its
	 * read index holds still here: an entry it has not read yet that
	 * this one overwrites is stolen time it will never count.
	 */
	if (kernel_log && idx >= paca_ptrs[d->cpu]->dtl_ridx + nent) {
		const struct dtl_entry *old = &log[idx % nent];

		d->unscanned += be32_to_cpu(old->enqueue_to_dispatch_time) +
				be32_to_cpu(old->ready_to_enqueue_time);
	}
	hvsim_dtl_fill((unsigned char *)&log[idx % nent], d->cpu,
		       get_hard_smp_processor_id(d->cpu), n, get_tb());
	/* The entry is whole before the index says it is there. */
	smp_wmb();
	WRITE_ONCE(vpa->dtl_idx, cpu_to_be64(idx + 1));
	d->written++;
	d->stolen += hvsim_dtl_stolen(n);
}

static enum hrtimer_restart hvsim_dtl_timer(struct hrtimer *timer)
{
	struct hvsim_dtl_cpu *d = container_of(timer, struct hvsim_dtl_cpu,
					       timer);
	ktime_t now = ktime_get();
	unsigned long flags;
	u64 due, n, elapsed;

	/* A timer moved off its CPU by hotplug logs nothing more. */
	if (smp_processor_id() != d->cpu)
		return HRTIMER_NORESTART;
	raw_spin_lock_irqsave(&hvsim_dtl_lock, flags);
	if (!hvsim_dtl_rate) {
		raw_spin_unlock_irqrestore(&hvsim_dtl_lock, flags);
		return HRTIMER_NORESTART;
	}
	/*
	 * Events happen while the CPU runs: a late tick (the vCPU was not
	 * running, as under TCG) does not make up for the time it missed,
	 * as a processor that is not dispatched logs nothing.
	 */
	elapsed = min_t(u64, ktime_to_ns(ktime_sub(now, d->last)),
			2 * HVSIM_DTL_TICK_NS);
	due = d->carry + elapsed * hvsim_dtl_rate;
	n = div64_u64_rem(due, NSEC_PER_SEC, &d->carry);
	if (n > HVSIM_DTL_MAX_PER_TICK) {
		n = HVSIM_DTL_MAX_PER_TICK;
		d->carry = 0;
	}
	d->last = now;
	while (n--)
		hvsim_dtl_log(d);
	raw_spin_unlock_irqrestore(&hvsim_dtl_lock, flags);
	hrtimer_forward_now(timer, ns_to_ktime(HVSIM_DTL_TICK_NS));
	return HRTIMER_RESTART;
}

/* Start the CPU's timer, on the CPU. */
static void hvsim_dtl_start_timer(void *arg)
{
	struct hvsim_dtl_cpu *d = arg;

	d->last = ktime_get();
	d->carry = 0;
	hrtimer_start(&d->timer, ns_to_ktime(HVSIM_DTL_TICK_NS),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

static int hvsim_dtl_online(unsigned int cpu)
{
	struct hvsim_dtl_cpu *d = &hvsim_dtl_cpus[cpu];

	if (READ_ONCE(hvsim_dtl_rate) && !hrtimer_active(&d->timer))
		hvsim_dtl_start_timer(d);
	return 0;
}

static int hvsim_dtl_offline(unsigned int cpu)
{
	hrtimer_cancel(&hvsim_dtl_cpus[cpu].timer);
	return 0;
}

/* backend operations: the hypervisor's side of H_REGISTER_VPA */

long hvsim_dtl_register(int cpu, phys_addr_t buf)
{
	struct dtl_entry *log = __va(buf);
	unsigned long flags;
	u32 len;
	long rc;

	/* The length is in the buffer's second word; 4 KiB must not be crossed. */
	len = be32_to_cpu(((__be32 *)log)[1]);
	if (len < HVSIM_DTL_ENTRY_SIZE || (buf & 4095) + len > 4096)
		return H_PARAMETER;
	raw_spin_lock_irqsave(&hvsim_dtl_lock, flags);
	rc = hvsim_dtl_register_rc;
	if (rc == H_SUCCESS) {
		struct hvsim_dtl_cpu *d = &hvsim_dtl_cpus[cpu];
		u32 i;

		d->registered = log;
		d->entries = len / HVSIM_DTL_ENTRY_SIZE;
		/*
		 * The hypervisor may dispatch the CPU between the hcall and
		 * the partition's reset of the index (mainline's order:
		 * register_dtl(), dtl_idx = 0, then the mask): what it logs
		 * then, under the mask the CPU has, is lost to the reset.
		 */
		if (cpu == smp_processor_id())
			for (i = 0; i < hvsim_dtl_register_log; i++)
				hvsim_dtl_log(d);
		/* The partition's part: the backend resets the index. */
		WRITE_ONCE(lppaca_of(cpu).dtl_idx, 0);
	}
	raw_spin_unlock_irqrestore(&hvsim_dtl_lock, flags);
	return rc;
}

long hvsim_dtl_unregister(int cpu)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&hvsim_dtl_lock, flags);
	hvsim_dtl_cpus[cpu].registered = NULL;
	raw_spin_unlock_irqrestore(&hvsim_dtl_lock, flags);
	return H_SUCCESS;
}

u64 hvsim_dtl_index(int cpu)
{
	return be64_to_cpu(READ_ONCE(lppaca_of(cpu).dtl_idx));
}

u8 hvsim_dtl_mask(int cpu)
{
	return READ_ONCE(lppaca_of(cpu).dtl_enable_mask);
}

void hvsim_dtl_set_mask(int cpu, u8 mask)
{
	WRITE_ONCE(lppaca_of(cpu).dtl_enable_mask, mask);
}

/* debugfs */

static int hvsim_dtl_rate_get(void *data, u64 *val)
{
	*val = READ_ONCE(hvsim_dtl_rate);
	return 0;
}

static int hvsim_dtl_rate_set(void *data, u64 val)
{
	unsigned int cpu;

	if (val > HVSIM_DTL_RATE_MAX)
		return -EINVAL;
	cpus_read_lock();
	WRITE_ONCE(hvsim_dtl_rate, val);
	for_each_online_cpu(cpu) {
		struct hvsim_dtl_cpu *d = &hvsim_dtl_cpus[cpu];

		if (!val)
			hrtimer_cancel(&d->timer);
		else if (!hrtimer_active(&d->timer))
			smp_call_function_single(cpu, hvsim_dtl_start_timer, d,
						 1);
	}
	cpus_read_unlock();
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(hvsim_dtl_rate_fops, hvsim_dtl_rate_get,
			 hvsim_dtl_rate_set, "%llu\n");

static int hvsim_dtl_rc_get(void *data, u64 *val)
{
	*val = READ_ONCE(hvsim_dtl_register_rc);
	return 0;
}

static int hvsim_dtl_rc_set(void *data, u64 val)
{
	WRITE_ONCE(hvsim_dtl_register_rc, (s64)val);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE_SIGNED(hvsim_dtl_rc_fops, hvsim_dtl_rc_get,
				hvsim_dtl_rc_set, "%lld\n");

/* Two unsigned numbers from a debugfs write. */
static int hvsim_dtl_two(const char __user *ubuf, size_t len, unsigned int *a,
			 unsigned int *b)
{
	char buf[32];

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sscanf(buf, "%u %u", a, b) != 2)
		return -EINVAL;
	return 0;
}

/**
 * struct hvsim_dtl_burst - a burst of events on one CPU
 * @d: the CPU's log
 * @count: events
 * @thief: first, another user registers a buffer of its own (dtl_thief)
 */
struct hvsim_dtl_burst {
	struct hvsim_dtl_cpu *d;
	unsigned int count;
	bool thief;
};

/* On the CPU, as the hypervisor logs: nothing else runs there meanwhile. */
static void hvsim_dtl_burst_on_cpu(void *arg)
{
	struct hvsim_dtl_burst *b = arg;
	unsigned long flags;

	raw_spin_lock_irqsave(&hvsim_dtl_lock, flags);
	if (b->thief) {
		b->d->registered = b->d->thief;
		b->d->entries = N_DISPATCH_LOG;
		WRITE_ONCE(lppaca_of(b->d->cpu).dtl_idx, 0);
	}
	while (b->count--)
		hvsim_dtl_log(b->d);
	raw_spin_unlock_irqrestore(&hvsim_dtl_lock, flags);
}

/* "CPU COUNT" written to dtl_burst or dtl_thief. */
static ssize_t hvsim_dtl_burst_parse_run(const char __user *ubuf, size_t len,
					 bool thief)
{
	struct hvsim_dtl_burst b = { .thief = thief };
	unsigned int cpu, count;
	int ret;

	ret = hvsim_dtl_two(ubuf, len, &cpu, &count);
	if (ret)
		return ret;
	if (cpu >= nr_cpu_ids || count > HVSIM_DTL_BURST_MAX)
		return -EINVAL;
	b.d = &hvsim_dtl_cpus[cpu];
	b.count = count;
	cpus_read_lock();
	ret = -ENODEV;
	if (cpu_online(cpu)) {
		/* Kept until unload: the simulated hypervisor may write it. */
		if (thief && !b.d->thief)
			b.d->thief = kzalloc(DISPATCH_LOG_BYTES, GFP_KERNEL);
		ret = thief && !b.d->thief ? -ENOMEM :
		      smp_call_function_single(cpu, hvsim_dtl_burst_on_cpu,
					       &b, 1);
	}
	cpus_read_unlock();
	return ret ?: len;
}

static ssize_t hvsim_dtl_burst_write(struct file *file,
				     const char __user *ubuf, size_t len,
				     loff_t *ppos)
{
	return hvsim_dtl_burst_parse_run(ubuf, len, false);
}

static const struct file_operations hvsim_dtl_burst_fops = {
	.owner = THIS_MODULE,
	.write = hvsim_dtl_burst_write,
	.llseek = noop_llseek,
};

static ssize_t hvsim_dtl_meddle_write(struct file *file,
				      const char __user *ubuf, size_t len,
				      loff_t *ppos)
{
	unsigned int cpu, mask;
	int ret;

	ret = hvsim_dtl_two(ubuf, len, &cpu, &mask);
	if (ret)
		return ret;
	if (cpu >= nr_cpu_ids || !cpu_possible(cpu) || mask > 0xff)
		return -EINVAL;
	hvsim_dtl_set_mask(cpu, mask);
	return len;
}

static const struct file_operations hvsim_dtl_meddle_fops = {
	.owner = THIS_MODULE,
	.write = hvsim_dtl_meddle_write,
	.llseek = noop_llseek,
};

static ssize_t hvsim_dtl_thief_write(struct file *file,
				     const char __user *ubuf, size_t len,
				     loff_t *ppos)
{
	return hvsim_dtl_burst_parse_run(ubuf, len, true);
}

static const struct file_operations hvsim_dtl_thief_fops = {
	.owner = THIS_MODULE,
	.write = hvsim_dtl_thief_write,
	.llseek = noop_llseek,
};

static int hvsim_dtl_cpus_show(struct seq_file *m, void *v)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		const struct hvsim_dtl_cpu *d = &hvsim_dtl_cpus[cpu];
		u64 events, written, filtered, unlogged, stolen, unscanned;
		unsigned long flags;
		bool registered;

		/* The counters only: the timer in there is not ours to copy. */
		raw_spin_lock_irqsave(&hvsim_dtl_lock, flags);
		registered = d->registered;
		events = d->events;
		written = d->written;
		filtered = d->filtered;
		unlogged = d->unlogged;
		stolen = d->stolen;
		unscanned = d->unscanned;
		raw_spin_unlock_irqrestore(&hvsim_dtl_lock, flags);
		seq_printf(m, "cpu %u log %s events %llu written %llu filtered %llu unlogged %llu stolen %llu unscanned %llu index %llu mask %u\n",
			   cpu, registered ? "registered" :
			   READ_ONCE(paca_ptrs[cpu]->dispatch_log) ? "kernel" :
			   "none", events, written, filtered, unlogged, stolen,
			   unscanned, hvsim_dtl_index(cpu), hvsim_dtl_mask(cpu));
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(hvsim_dtl_cpus);

/* Back to the state at load: no rate, registrations answered normally. */
void hvsim_dtl_reset(void)
{
	hvsim_dtl_rate_set(NULL, 0);
	WRITE_ONCE(hvsim_dtl_register_rc, 0);
	WRITE_ONCE(hvsim_dtl_register_log, 0);
}

/**
 * hvsim_dtl_init() - set up the simulated log
 * @dir: the simulator's debugfs directory
 *
 * Return: 0 or -ENOMEM, or the error of setting up CPU hotplug.
 */
int hvsim_dtl_init(struct dentry *dir)
{
	unsigned int cpu;
	int ret;

	hvsim_dtl_cpus = kcalloc(nr_cpu_ids, sizeof(*hvsim_dtl_cpus),
				 GFP_KERNEL);
	if (!hvsim_dtl_cpus)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct hvsim_dtl_cpu *d = &hvsim_dtl_cpus[cpu];

		d->cpu = cpu;
		hrtimer_setup(&d->timer, hvsim_dtl_timer, CLOCK_MONOTONIC,
			      HRTIMER_MODE_REL_PINNED_HARD);
	}
	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN,
					"htmtrace_hvsim/dtl:online",
					hvsim_dtl_online, hvsim_dtl_offline);
	if (ret < 0) {
		kfree(hvsim_dtl_cpus);
		return ret;
	}
	hvsim_dtl_hp_state = ret;
	debugfs_create_file_unsafe("dtl_rate", 0600, dir, NULL,
				   &hvsim_dtl_rate_fops);
	debugfs_create_file("dtl_burst", 0200, dir, NULL,
			    &hvsim_dtl_burst_fops);
	debugfs_create_file_unsafe("dtl_register_rc", 0600, dir, NULL,
				   &hvsim_dtl_rc_fops);
	debugfs_create_u32("dtl_register_log", 0600, dir,
			   &hvsim_dtl_register_log);
	debugfs_create_file("dtl_meddle", 0200, dir, NULL,
			    &hvsim_dtl_meddle_fops);
	debugfs_create_file("dtl_thief", 0200, dir, NULL,
			    &hvsim_dtl_thief_fops);
	debugfs_create_file("dtl_cpus", 0400, dir, NULL, &hvsim_dtl_cpus_fops);
	return 0;
}

/* After the backend is unregistered: nothing logs any more. */
void hvsim_dtl_exit(void)
{
	unsigned int cpu;

	hvsim_dtl_reset();
	cpuhp_remove_state_nocalls(hvsim_dtl_hp_state);
	for_each_possible_cpu(cpu)
		kfree(hvsim_dtl_cpus[cpu].thief);
	kfree(hvsim_dtl_cpus);
}
