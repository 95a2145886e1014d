#!/usr/bin/env bash
# scripts/deps.sh - install the Debian packages tdrec needs, skipping those present.
# Sourced by scripts/demo and scripts/test: tdr_install_deps [EXTRA_PACKAGE...].
# Uses sudo when not root. Returns non-zero (and apt-get says why) on failure.
tdr_install_deps() {
	local pkgs=(cmake gcc pkg-config libelf-dev libdw-dev libzstd-dev libcmocka-dev zlib1g-dev "$@")
	local missing=() p
	for p in "${pkgs[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	echo "tdrec: installing missing packages: ${missing[*]}" >&2
	local sudo=()
	if [ "$(id -u)" -ne 0 ]; then
		if ! command -v sudo >/dev/null; then
			echo "tdrec: not root and no sudo: install as root: apt-get install ${missing[*]}" >&2
			return 1
		fi
		sudo=(sudo)
	fi
	# env, not a variable assignment before sudo: sudo resets the environment.
	"${sudo[@]}" apt-get update -qq >&2 &&
		"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -qq "${missing[@]}" >&2
}
