// SPDX-License-Identifier: GPL-2.0
/*
 * htmtrace: the HTM target registry, and the checks of the targets and
 * configurations users pass.
 *
 * One (type, node, chip, core) has one holder at a time, whether a channel
 * or a perf event; a GLOBAL target overlaps every other, and the nest
 * targets of one chip overlap each other (PowerVM may have one nest unit
 * per chip, which every core index names). A holder that left
 * its unit configured (a DECONFIGURE that failed at teardown) leaves a
 * stranded hold that keeps the target from every user. The registry also
 * remembers, per target, the DUMP_DATA length the hypervisor took once it
 * refused a longer one. One lock, htm_targets_lock, below.
 */
#define pr_fmt(fmt) "htmtrace: " fmt

#include <linux/errno.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "htmtrace.h"
#include "htm_internal.h"

/* target registry */

/*
 * One hold per claimed target. @owner is the holder's cookie; NULL once the
 * holder went and left the unit configured (a DECONFIGURE that failed at
 * teardown): the hold is stranded, @what and @err say why, and it stays,
 * so that the next user gets -EBUSY rather than the hypervisor's error for
 * a unit nobody holds.
 */
struct htm_target_hold {
	struct list_head node;
	struct htm_target target;
	const void *owner;
	const char *what;
	int err;
};

/* The largest DUMP_DATA length a target's hypervisor took, once shrunk. */
struct htm_target_xfer {
	struct list_head node;
	struct htm_target target;
	size_t xfer;
};

/*
 * Protects htm_targets, every hold on it and htm_xfers; a leaf lock (taken
 * inside a channel's lock, never around another), in process context only.
 */
static DEFINE_MUTEX(htm_targets_lock);
static LIST_HEAD(htm_targets);
static LIST_HEAD(htm_xfers);

static bool htm_target_equal(const struct htm_target *a,
			     const struct htm_target *b)
{
	return a->type == b->type && a->node == b->node &&
	       a->chip == b->chip && a->core == b->core;
}

/*
 * Two targets overlap if they may be the same unit: the same target, one
 * GLOBAL (all), or two nest targets of one chip. Whether the core index
 * names a nest unit of its own is not public: the hardware has one nest
 * HTM per chip, and both public callers pass the core index the user gives
 * for every type (htmdump.c's coreindexonchip, htm-perf.c's config 20-27).
 * Two holders of one unit would CONFIGURE it twice, or DECONFIGURE it
 * under each other's trace: the second claim is refused instead.
 */
static bool htm_target_overlap(const struct htm_target *a,
			       const struct htm_target *b)
{
	if (a->type == HTMTRACE_TYPE_GLOBAL || b->type == HTMTRACE_TYPE_GLOBAL)
		return true;
	if (a->type == HTMTRACE_TYPE_NEST && b->type == HTMTRACE_TYPE_NEST)
		return a->node == b->node && a->chip == b->chip;
	return htm_target_equal(a, b);
}

/**
 * htm_target_claim() - become the one holder of a target
 * @t: target
 * @owner: cookie identifying the holder
 *
 * Return: 0, -EBUSY if another holder has it or one that overlaps it (a
 * GLOBAL target overlaps every other, a nest target the other nest
 * targets of its chip), or a stranded hold does (see
 * htm_target_strand(): debugfs htmtrace/targets says why), -ENOMEM.
 */
int htm_target_claim(const struct htm_target *t, const void *owner)
{
	struct htm_target_hold *hold, *new;
	int ret = 0;

	new = kzalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	new->target = *t;
	new->owner = owner;

	mutex_lock(&htm_targets_lock);
	list_for_each_entry(hold, &htm_targets, node) {
		if (htm_target_overlap(&hold->target, t)) {
			ret = -EBUSY;
			break;
		}
	}
	if (!ret)
		list_add(&new->node, &htm_targets);
	mutex_unlock(&htm_targets_lock);

	if (ret)
		kfree(new);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(htm_target_claim);

/* The hold of @t by @owner, under htm_targets_lock; NULL if none. */
static struct htm_target_hold *htm_target_find(const struct htm_target *t,
					       const void *owner)
{
	struct htm_target_hold *hold;

	lockdep_assert_held(&htm_targets_lock);
	list_for_each_entry(hold, &htm_targets, node)
		if (htm_target_equal(&hold->target, t) && hold->owner == owner)
			return hold;
	return NULL;
}

void htm_target_release(const struct htm_target *t, const void *owner)
{
	struct htm_target_hold *hold;

	mutex_lock(&htm_targets_lock);
	hold = htm_target_find(t, owner);
	if (hold) {
		list_del(&hold->node);
		kfree(hold);
	}
	mutex_unlock(&htm_targets_lock);
}
EXPORT_SYMBOL_IF_KUNIT(htm_target_release);

/**
 * htm_target_strand() - the holder goes, but the unit stays configured
 * @t: target
 * @owner: the holder, which goes
 * @what: the op that failed, a string constant
 * @err: its errno
 *
 * The hold stays, without an owner: every later claim of the target (or of
 * one that overlaps it) gets -EBUSY, and debugfs htmtrace/targets names
 * the op and errno, until the module is unloaded.
 */
void htm_target_strand(const struct htm_target *t, const void *owner,
		       const char *what, int err)
{
	struct htm_target_hold *hold;

	mutex_lock(&htm_targets_lock);
	hold = htm_target_find(t, owner);
	if (hold) {
		hold->owner = NULL;
		hold->what = what;
		hold->err = err;
	}
	mutex_unlock(&htm_targets_lock);
	pr_warn("type %u node %u chip %u core %u: %s failed (%d): the unit may stay configured, the target is kept from every user\n",
		t->type, t->node, t->chip, t->core, what, err);
}
EXPORT_SYMBOL_IF_KUNIT(htm_target_strand);

/**
 * htm_targets_show() - the held targets, for debugfs htmtrace/targets
 * @m: the file
 *
 * One line per hold: "type T node N chip C core K held", or "... stranded
 * OP ERRNO" for a hold whose holder left the unit configured.
 */
void htm_targets_show(struct seq_file *m)
{
	struct htm_target_hold *hold;

	mutex_lock(&htm_targets_lock);
	list_for_each_entry(hold, &htm_targets, node) {
		seq_printf(m, "type %u node %u chip %u core %u ",
			   hold->target.type, hold->target.node,
			   hold->target.chip, hold->target.core);
		if (hold->owner)
			seq_puts(m, "held\n");
		else
			seq_printf(m, "stranded %s %d\n", hold->what,
				   hold->err);
	}
	mutex_unlock(&htm_targets_lock);
}

/**
 * htm_target_xfer() - the DUMP_DATA length to start a target's dump with
 * @t: target
 *
 * Return: the bounce size (bounce_kb), or less where the hypervisor refused
 * a length for the target before (htm_target_xfer_learn()).
 */
size_t htm_target_xfer(const struct htm_target *t)
{
	struct htm_target_xfer *x;
	size_t xfer = htm_bounce_size;

	mutex_lock(&htm_targets_lock);
	list_for_each_entry(x, &htm_xfers, node) {
		if (htm_target_equal(&x->target, t)) {
			xfer = min(xfer, x->xfer);
			break;
		}
	}
	mutex_unlock(&htm_targets_lock);
	return xfer;
}
EXPORT_SYMBOL_IF_KUNIT(htm_target_xfer);

/**
 * htm_target_xfer_learn() - remember the length a target's dump shrank to
 * @t: target
 * @xfer: the length that the hypervisor took, after it refused a longer one
 *
 * Later dumps of the target, by any channel or event, start there, and do
 * not pay the refused requests again. Nothing is remembered at the bounce
 * size or above (or if memory is short: the next dump learns it again).
 */
void htm_target_xfer_learn(const struct htm_target *t, size_t xfer)
{
	struct htm_target_xfer *x, *new = NULL;

	if (xfer >= htm_bounce_size)
		return;
	mutex_lock(&htm_targets_lock);
	list_for_each_entry(x, &htm_xfers, node) {
		if (htm_target_equal(&x->target, t)) {
			x->xfer = min(x->xfer, xfer);
			goto out;
		}
	}
	new = kzalloc(sizeof(*new), GFP_KERNEL);
	if (new) {
		new->target = *t;
		new->xfer = xfer;
		list_add(&new->node, &htm_xfers);
	}
out:
	mutex_unlock(&htm_targets_lock);
}
EXPORT_SYMBOL_IF_KUNIT(htm_target_xfer_learn);

/* At unload, when no holder is left: free the stranded holds and sizes. */
void htm_targets_exit(void)
{
	struct htm_target_hold *hold, *next;
	struct htm_target_xfer *x, *xnext;

	mutex_lock(&htm_targets_lock);
	list_for_each_entry_safe(hold, next, &htm_targets, node) {
		WARN_ON(hold->owner);
		list_del(&hold->node);
		kfree(hold);
	}
	list_for_each_entry_safe(x, xnext, &htm_xfers, node) {
		list_del(&x->node);
		kfree(x);
	}
	mutex_unlock(&htm_targets_lock);
}

/* argument checks */

/**
 * htm_target_from_user() - check a user target and convert it
 * @ut: target as passed by the user
 * @any_type: accept any 8-bit type (information queries) instead of the
 *	HTMTRACE_TYPE_* a trace needs
 * @t: result
 *
 * Return: 0 or -EINVAL (bad type or index, a target kind other than
 * HTMTRACE_TARGET_HW, a reserved field set).
 */
int htm_target_from_user(const struct htmtrace_target *ut, bool any_type,
			 struct htm_target *t)
{
	switch (ut->type) {
	case HTMTRACE_TYPE_NEST:
	case HTMTRACE_TYPE_CORE:
	case HTMTRACE_TYPE_LLAT:
	case HTMTRACE_TYPE_GLOBAL:
		break;
	default:
		if (!any_type || ut->type > 0xff)
			return -EINVAL;
	}
	if (ut->node > HTMTRACE_INDEX_MAX || ut->chip > HTMTRACE_INDEX_MAX ||
	    ut->core > HTMTRACE_INDEX_MAX)
		return -EINVAL;
	/* Logical and processor-id targets have no public meaning yet. */
	if (ut->kind != HTMTRACE_TARGET_HW || ut->reserved)
		return -EINVAL;

	t->type = ut->type;
	t->node = ut->node;
	t->chip = ut->chip;
	t->core = ut->core;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(htm_target_from_user);

/**
 * htm_config_check() - check a configuration from the user
 * @ucfg: HTMTRACE_IOC_CONFIGURE argument
 * @cfg: receives the checked configuration; without HTMTRACE_CFG_MODE its
 *	mode is what htmdump.c passes: all ones twice ("use default htm mode
 *	reg mask and htm mode reg value") with HTMTRACE_CFG_NOWRAP, else zeros
 *
 * Return: 0 or -EINVAL (unknown flag, reserved field set, a mode without
 * HTMTRACE_CFG_MODE, bad target).
 */
int htm_config_check(const struct htmtrace_config *ucfg,
		     struct htm_config *cfg)
{
	unsigned int i;

	if (ucfg->flags & ~HTMTRACE_CFG_FLAGS || ucfg->reserved0)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(ucfg->reserved); i++)
		if (ucfg->reserved[i])
			return -EINVAL;
	if (ucfg->flags & HTMTRACE_CFG_MODE) {
		cfg->mode_mask = ucfg->mode_mask;
		cfg->mode_value = ucfg->mode_value;
	} else {
		if (ucfg->mode_mask || ucfg->mode_value)
			return -EINVAL;
		cfg->mode_mask = ucfg->flags & HTMTRACE_CFG_NOWRAP ? -1ULL : 0;
		cfg->mode_value = cfg->mode_mask;
	}
	cfg->flags = ucfg->flags;
	return htm_target_from_user(&ucfg->target, false, &cfg->target);
}
EXPORT_SYMBOL_IF_KUNIT(htm_config_check);
