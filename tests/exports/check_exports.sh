#!/usr/bin/env bash
# check_exports.sh LIBRARY INCLUDE_DIR
# Checks the dynamic symbols libadreno.so defines against the public headers, not against the
# version script that chose them: every C symbol is a function adreno.h declares and every such
# function is exported; every C++ symbol belongs to a class or function the public .hpp headers
# declare at namespace scope, and none to a library-internal Impl class or layer namespace.
set -euo pipefail
library=$1 include=$2/adreno
fail=0

# (The version node, an absolute symbol of type A, names no code.)
exported=$(nm -D --defined-only "$library" | awk '$2 != "A" {print $3}' | sed 's/@.*//' | sort -u)
[ -n "$exported" ] || { echo "no dynamic symbols in $library"; exit 1; }

# The C API: exactly the functions adreno.h declares.
declared_c=$(grep -oE '^[A-Za-z_][A-Za-z0-9_ ]*\*? *adreno_[a-z0-9_]+\(' "$include/adreno.h" |
             grep -oE 'adreno_[a-z0-9_]+\($' | tr -d '(' | sort -u)
exported_c=$(echo "$exported" | grep -E '^adreno_' || true)
missing=$(comm -23 <(echo "$declared_c") <(echo "$exported_c"))
extra=$(comm -13 <(echo "$declared_c") <(echo "$exported_c"))
[ -z "$missing" ] || { echo "declared in adreno.h but not exported:"; echo "$missing"; fail=1; }
[ -z "$extra" ] || { echo "exported C symbols adreno.h does not declare:"; echo "$extra"; fail=1; }

# The C++ API: names the headers declare at namespace scope (classes, structs, free functions).
public=$(cat "$include"/*.hpp | grep -E '^(class|struct) [A-Za-z0-9_]+|^[A-Za-z].*[ :&*][a-z_0-9]+\(' |
         grep -vE '^(enum|namespace|template|using|#)' |
         sed -E 's/^(class|struct) ([A-Za-z0-9_]+).*/\2/; t; s/^.*[ :&*]([a-z_0-9]+)\(.*/\1/'
         # and namespaces nested in adreno that a public header opens
         cat "$include"/*.hpp | sed -nE 's/^namespace adreno::([A-Za-z0-9_]+).*/\1/p')
public=$(echo "$public" | sort -u)
echo "public C++ names: $(echo $public)"
while IFS= read -r symbol; do
  case $symbol in adreno_*) continue ;; esac
  name=$(echo "$symbol" | c++filt)
  # The entity's qualified name, without its parameters (which may name internal types).
  entity=$(echo "$name" | sed -E 's/^(typeinfo name for |typeinfo for |vtable for )//; s/\(.*//')
  if [[ $entity == *::Impl* ]] || ! [[ $entity =~ ^adreno::([A-Za-z_0-9]+)(::|$) ]] ||
     ! grep -qx "${BASH_REMATCH[1]}" <<< "$public"; then
    echo "exported but not public API: $name"
    fail=1
  fi
done <<< "$exported"

count=$(echo "$exported" | wc -l)
[ $fail -eq 0 ] && echo "$count exported symbols, all public API; every adreno.h function exported"
exit $fail
