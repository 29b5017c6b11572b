# Sourced (`. judge-environment.sh`) first by each step of the action that judges: the
# pull request's checkout is data to the judge, never its working folder, a
# configuration one of its tools discovers, or a program on its search path.
# docs/security.md ("What the judge's tools read") lists each tool and what this
# switches off. Bash builtins only until PATH is clean: before that, a command name
# could find a program of the checkout.

# The checkout, as the file system names it (symlinks resolved).
_rg_real() { (cd -- "$1" 2> /dev/null && pwd -P); }
_rg_workspace="$(_rg_real "${GITHUB_WORKSPACE:-/nonexistent}" || true)"
_rg_inside_workspace() {
  [ -n "$_rg_workspace" ] && [ "$_rg_workspace" != / ] \
    && case "$1/" in "$_rg_workspace"/*) true ;; *) false ;; esac
}

# A search path with absolute folders outside the checkout only. An empty or relative
# entry is the current folder (or one below it); a folder of the checkout is the pull
# request's. PATH finds programs, LD_LIBRARY_PATH the libraries they load (setup-python
# sets it), LD_PRELOAD libraries every program loads.
_rg_searched() {
  local entry resolved kept="" folder separators=":"
  local -a entries
  if [ "$2" = files ]; then separators=": "; fi  # LD_PRELOAD: colons or spaces
  IFS="$separators" read -r -a entries <<< "$1"
  for entry in "${entries[@]}"; do
    case "$entry" in /*) ;; *) continue ;; esac
    folder="$entry"
    if [ "$2" = files ]; then folder="${entry%/*}/"; fi
    resolved="$(_rg_real "$folder")" || continue  # gone: nothing to find there
    if _rg_inside_workspace "$resolved"; then continue; fi
    kept="${kept:+$kept:}$entry"
  done
  printf '%s' "$kept"
}
PATH="$(_rg_searched "$PATH" folders)"
export PATH
if [ -n "${LD_LIBRARY_PATH:-}" ]; then
  LD_LIBRARY_PATH="$(_rg_searched "$LD_LIBRARY_PATH" folders)"
  export LD_LIBRARY_PATH
fi
if [ -n "${LD_PRELOAD:-}" ]; then
  LD_PRELOAD="$(_rg_searched "$LD_PRELOAD" files)"
  export LD_PRELOAD
fi

# The folder recall-gate judges (`working-directory`, relative to the checkout), named
# to it by RECALL_GATE_WORKING_DIRECTORY instead of being its working folder.
case "${RG_WORKING_DIRECTORY:-.}" in
  /*) RECALL_GATE_WORKING_DIRECTORY="${RG_WORKING_DIRECTORY}" ;;
  *) RECALL_GATE_WORKING_DIRECTORY="${GITHUB_WORKSPACE:-$PWD}/${RG_WORKING_DIRECTORY:-.}" ;;
esac
RECALL_GATE_WORKING_DIRECTORY="$(_rg_real "$RECALL_GATE_WORKING_DIRECTORY" || printf '%s' "$RECALL_GATE_WORKING_DIRECTORY")"
export RECALL_GATE_WORKING_DIRECTORY

# Python: no PYTHON* variable (PYTHONPATH, PYTHONHOME, PYTHONSTARTUP, …), no user site;
# every interpreter the action starts itself runs with -I as well.
while IFS= read -r _rg_name; do
  case "$_rg_name" in PYTHON*) unset "$_rg_name" ;; esac
done < <(compgen -e)
export PYTHONNOUSERSITE=1 PYTHONSAFEPATH=1

# uv: no uv.toml or [tool.uv] (the folder's, its parents', the user's, the system's),
# no project, no managed or downloaded Python; the interpreter is named by absolute path.
# (--python-preference only-system on uv's command lines: uv refuses it beside
# UV_NO_MANAGED_PYTHON, which newer versions read.)
export UV_NO_CONFIG=1 UV_NO_PROJECT=1 UV_PYTHON_DOWNLOADS=never UV_PYTHON_PREFERENCE=only-system
unset UV_CONFIG_FILE UV_PYTHON UV_PROJECT UV_WORKING_DIR UV_NO_MANAGED_PYTHON UV_MANAGED_PYTHON

# pip: no configuration file at all (`--isolated` on its command line drops PIP_* too).
export PIP_CONFIG_FILE=/dev/null

# git: no system or global configuration and no hooks; only the checkout's own
# .git/config (written by actions/checkout, not a file of the tree). The checkout is
# named safe, as actions/checkout's global setting did (a container job's owner differs).
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null GIT_TERMINAL_PROMPT=0
export GIT_CONFIG_COUNT=4 \
  GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=/dev/null \
  GIT_CONFIG_KEY_1=core.fsmonitor GIT_CONFIG_VALUE_1=false \
  GIT_CONFIG_KEY_2=safe.directory GIT_CONFIG_VALUE_2="${_rg_workspace:-${GITHUB_WORKSPACE:-}}" \
  GIT_CONFIG_KEY_3=safe.directory GIT_CONFIG_VALUE_3="$RECALL_GATE_WORKING_DIRECTORY"

# The working folder: a new, empty one (a folder of the runner's temp, never the
# checkout nor a parent of the downloaded capture).
_rg_here="$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/recall-gate-judge-step.XXXXXX")" && cd -- "$_rg_here" || {
  echo "::error title=recall-gate::cannot make a working folder for the judge under RUNNER_TEMP"
  exit 2
}
unset _rg_name
