#!/usr/bin/env bash
# Builds the libFuzzer targets into Fuzz/.build/: csv, values, predicate, geoargs, area, sheet.
#
# Each target is the library's parser sources compiled directly with the harness in
# Fuzz/Targets/, as one module, by `swiftc -sanitize=fuzzer,address -parse-as-library -O`: the
# toolchain ships libFuzzer and ASan (lib/swift/clang/lib/linux/libclang_rt.fuzzer-*.a), so no
# system package is needed, and the build takes seconds rather than SwiftPM's instrumented build
# of GRDB and swift-crypto. The parsers that `import GRDB` (predicates, for their SQL arguments)
# get Fuzz/Shims/GRDB.swift, a module named GRDB with just the declarations they use.
#
# Usage: bash Fuzz/build.sh [target…]      (all six when none is named)
set -euo pipefail
cd "$(dirname "$0")"
src=../Sources/WellKit
out=.build
mkdir -p "$out"
flags=(-O -parse-as-library -swift-version 6 -g -use-ld=lld -package-name wellkit)

sources_csv=("$src/Import/Reading/CSVScanner.swift" "$src/Import/Reading/CSVReader.swift" "$src/Import/Reading/ByteSource.swift"
             "$src/Import/Reading/FieldText.swift" "$src/Import/ImportError.swift" "$src/Import/Placement/PlacementFix.swift"
             "$src/Import/LoadRemedy.swift" "$src/Import/Reading/TitleLines.swift" "$src/Storage/WellField.swift")
sources_values=("$src/Import/Parsing/ValueParsing.swift" "$src/Geo/DMS.swift" "$src/Geo/Double+Decimal.swift" "$src/Import/Parsing/PointText.swift"
                "$src/Trimming.swift" Shims/Support.swift)
# Predicates and the other arguments share their sources: WellFetchRequest.swift holds WellField(keyPath:).
sources_predicate=("$src/Query/WellPredicate.swift" "$src/Query/BoundSQL.swift" "$src/Query/PredicateParser.swift" "$src/Storage/WellField.swift" "$src/Storage/WellAttribute.swift" "$src/Storage/ExtraValues.swift"
                   "$src/Storage/StoreError.swift" "$src/Query/QueryError.swift" "$src/Import/Parsing/ValueParsing.swift" "$src/Geo/BoundingBox.swift"
                   "$src/Geo/Coordinate.swift" "$src/Records/WellPin.swift" "$src/Query/WellFetchRequest.swift" "$src/Geo/Distance.swift" "$src/Geo/Double+Decimal.swift"
                   "$src/Geo/Area.swift" "$src/JSON/JSONDocument.swift" "$src/Records/WellValue.swift" "$src/Trimming.swift" Shims/Support.swift)
sources_geoargs=("${sources_predicate[@]}")
sources_area=("$src/Geo/Area.swift" "$src/JSON/JSONDocument.swift" "$src/Query/QueryError.swift" "$src/Geo/BoundingBox.swift"
              "$src/Geo/Coordinate.swift" "$src/Records/WellPin.swift" "$src/Records/WellValue.swift" "$src/Storage/WellField.swift" "$src/Trimming.swift" Shims/Support.swift)

sources_sheet=("$src/Import/Reading/Containers/SheetScanner.swift")

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(csv values predicate geoargs area sheet)

# The GRDB stand-in, once.
if [ ! -f "$out/GRDB.swiftmodule" ] || [ Shims/GRDB.swift -nt "$out/GRDB.swiftmodule" ]; then
  swiftc "${flags[@]}" -sanitize=address -module-name GRDB -emit-library -static -emit-module \
    -emit-module-path "$out/GRDB.swiftmodule" -o "$out/libGRDB.a" Shims/GRDB.swift
fi

for target in "${targets[@]}"; do
  case "$target" in
    csv) files=("${sources_csv[@]}" Targets/CSVFuzz.swift) ;;
    values) files=("${sources_values[@]}" Targets/ValuesFuzz.swift) ;;
    predicate) files=("${sources_predicate[@]}" Targets/PredicateFuzz.swift) ;;
    geoargs) files=("${sources_geoargs[@]}" Targets/GeoArgsFuzz.swift) ;;
    area) files=("${sources_area[@]}" Targets/AreaFuzz.swift) ;;
    sheet) files=("${sources_sheet[@]}" Targets/SheetFuzz.swift) ;;
    *) echo "build.sh: unknown target \"$target\"; use csv, values, predicate, geoargs, area or sheet" >&2; exit 64 ;;
  esac
  echo "build: fuzz-$target" >&2
  swiftc "${flags[@]}" -sanitize=fuzzer,address -module-name WellKit -I "$out" -L "$out" -lGRDB \
    -module-cache-path "$out/module-cache" -o "$out/fuzz-$target" "${files[@]}"
done
