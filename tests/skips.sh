# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# skip_allowed VARIANT TEST: tests/skips.allow expects TEST to skip on
# VARIANT ("host" for the host suites; a KUnit case is "kunit SUITE.CASE").
# Sourced by tests/check.sh and tests/kunit.sh; the caller sets $top.
skip_allowed() {
	local line pat
	while IFS= read -r line; do
		case $line in '' | '#'*) continue ;; esac
		pat=${line%%: *}
		# shellcheck disable=SC2053 # the variant is a pattern on purpose
		if [[ $1 == $pat ]] && [ "${line#*: }" = "$2" ]; then
			return 0
		fi
	done < "${top:?}/tests/skips.allow"
	return 1
}
