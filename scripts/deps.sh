#!/usr/bin/env bash
# scripts/deps.sh - install the Debian packages tdrec needs, skipping those present.
# Sourced by scripts/demo and scripts/test. Uses sudo when not root.
tdr_install_deps() {
	local pkgs=(cmake gcc pkg-config libelf-dev libdw-dev libzstd-dev libcmocka-dev "$@")
	local missing=() p
	for p in "${pkgs[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	echo "tdrec: installing missing packages: ${missing[*]}" >&2
	local sudo=()
	[ "$(id -u)" -ne 0 ] && sudo=(sudo)
	"${sudo[@]}" apt-get update -qq >&2 &&
		DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >&2
}
