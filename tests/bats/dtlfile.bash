# SPDX-License-Identifier: GPL-2.0
# bats helpers for the host suites that read htmtrace dtl record's files
# (`load dtlfile`): the file header the tool writes before the device's
# stream (userspace/dtl_header.c).

# hdr_len FILE: the length of FILE's file header, 0 if it has none.
hdr_len() {
	local n
	if [ "$(head -c 16 "$1" | tail -c 8)" != HTMTRDTL ]; then
		echo 0
		return
	fi
	n=$(od -An -tu2 -j2 -N2 "$1")
	n=${n// /}
	[[ $n =~ ^[0-9]+$ ]] || { echo "hdr_len: no length in $1" >&2; return 1; }
	echo "$n"
}

# stream_of FILE: FILE without its file header, the device's stream.
stream_of() {
	tail -c +$(($(hdr_len "$1") + 1)) "$1"
}
