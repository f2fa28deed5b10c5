#!/usr/bin/env bash
# ctest umrun.man_completion: the generated umrun(1) and completions (umrun --help-options=man|bash|zsh).
#   test_man_completion.sh UMRUN MAN_PAGE BASH_COMPLETION ZSH_COMPLETION
# - `man` renders the page; it shows every flag of `umrun --help` and every config key of the runner's, the
#   backends' and the apps' tables (the keys of --help-options=markdown);
# - bash: `umrun --set run.bac<TAB>` completes run.backend; `--set run.layout=<TAB>` offers aos soa auto;
#   `--sus<TAB>` offers --suite and --suite-set; a config argument offers .yaml files;
# - zsh, where it is installed: the script parses, and (compadd stubbed) offers the same keys and values.
set -euo pipefail
UMRUN=$1 MAN=$2 BASHC=$3 ZSHC=$4
fail() { echo "FAIL: $*" >&2; exit 1; }
for f in "$MAN" "$BASHC" "$ZSHC"; do [ -s "$f" ] || fail "$f was not generated"; done
cmp -s "$MAN" <("$UMRUN" --help-options=man) || fail "$MAN is not what this umrun prints (rebuild)"

page=$(MANWIDTH=200 man -l "$MAN" 2>/dev/null | sed $'s/.\b//g') || fail "man -l $MAN"
[ -n "$page" ] || fail "man rendered nothing"
missing=0
flags=$("$UMRUN" --help | grep -oE '(^|[ [(])--[a-z][a-z-]*' | sed 's/^[ [(]//' | sort -u)
keys=$("$UMRUN" --help-options=markdown | grep -oE '^\| `[^`]+`' | sed 's/^| `//; s/`$//' | sort -u)
nflags=0 nkeys=0
for f in $flags; do nflags=$((nflags + 1)); grep -qF -- "$f" <<< "$page" || { echo "not in man umrun: $f"; missing=1; }; done
for k in $keys; do nkeys=$((nkeys + 1)); grep -qF -- "$k" <<< "$page" || { echo "not in man umrun: $k"; missing=1; }; done
[ "$missing" = 0 ] || fail "man umrun lacks the options above"
[ "$nflags" -ge 10 ] && [ "$nkeys" -ge 50 ] || fail "only $nflags flags and $nkeys keys found to check"
echo "man umrun: all $nflags flags and $nkeys config keys shown"

complete_line() { # the words of a command line, the last one being completed: prints COMPREPLY
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _umrun; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$BASHC" "$@"
}
[ "$(complete_line umrun --set run.bac)" = "run.backend" ] || fail "--set run.bac<TAB>: $(complete_line umrun --set run.bac)"
got=$(complete_line umrun --set run.layout = | sort | tr '\n' ' ')
[ "$got" = "aos auto soa " ] || fail "--set run.layout=<TAB> offers '$got', not aos auto soa"
got=$(complete_line umrun --set run.backend = s | tr '\n' ' ')
[ "$got" = "seq " ] || fail "--set run.backend=s<TAB> offers '$got'"
got=$(complete_line umrun --sui | sort | tr '\n' ' ')
[[ "$got" == *"--suite "* && "$got" == *"--suite-set "* ]] || fail "--sui<TAB> offers '$got'"
echo "bash completion: run.bac -> run.backend, run.layout= -> aos auto soa, --sui -> $got"
if command -v zsh > /dev/null; then
  zsh -n "$ZSHC" || fail "$ZSHC does not parse"
  # the completion function with zsh's compadd, compset and _files stubbed: what it offers
  zoffer() { # the words, the last one being completed
    zsh -f -c 'compadd() { while [[ $1 == -* && $1 != -- ]]; do [[ $1 == -S ]] && shift; shift; done
                 [[ $1 == -- ]] && shift; print -l -- "$@"; }
               compset() { PREFIX=${PREFIX#*=}; }
               _files() { print -- FILES; }
               f=$1; shift; words=("$@"); CURRENT=$#; PREFIX=${words[-1]}; source $f' _ "$ZSHC" "$@"
  }
  zoffer umrun --set run.bac | grep -qx run.backend || fail "zsh: --set run.bac<TAB> does not offer run.backend"
  [ "$(zoffer umrun --set run.layout= | sort | tr '\n' ' ')" = "aos auto soa " ] || fail "zsh: run.layout= values"
  echo "zsh completion: run.bac -> run.backend, run.layout= -> aos auto soa"
else echo "zsh not installed: the zsh completion is not checked here"; fi
echo "umrun.man_completion: all checks passed"
