# bash completion for tdrec: the commands, and each command's options as
# its own --help lists them, so they stay in step with the installed binary.
# Installed as share/bash-completion/completions/tdrec (cmake --install).
_tdrec() {
	local cur=${COMP_WORDS[COMP_CWORD]} cmd=${COMP_WORDS[1]} words
	if [[ $COMP_CWORD -eq 1 ]]; then
		words=$(tdrec --help 2>/dev/null | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p')
		mapfile -t COMPREPLY < <(compgen -W "$words --help --version" -- "$cur")
	elif [[ $cur == -* ]]; then
		words=$(tdrec "$cmd" --help 2>/dev/null |
			grep -oE -- '(^|[ ,])--?[a-zA-Z][a-zA-Z-]*' | tr -d ' ,' | sort -u)
		mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
	else
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
	fi
}
complete -o filenames -F _tdrec tdrec
