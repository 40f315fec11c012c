// Reads one Parquet file with hyparquet, an independent reader (plain
// JavaScript, no DuckDB), and prints {"schema": [...], "rows": [...]} as
// JSON on stdout: the flat Parquet schema elements (name, type,
// repetition_type, converted_type, num_children) and every row as an
// object. INT64 values print as numbers when exact, else as strings.
//
// usage: node read_parquet.mjs HYPARQUET_DIR FILE
// (HYPARQUET_DIR is .deps/hyparquet/node_modules/hyparquet, from
// scripts/fetch-hyparquet.sh.) Exits 1 with a message on stderr on failure.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

const [dir, file] = process.argv.slice(2)
if (!dir || !file) {
  console.error('usage: node read_parquet.mjs HYPARQUET_DIR FILE')
  process.exit(2)
}
try {
  const hyparquet = await import(pathToFileURL(join(dir, 'src', 'index.js')).href)
  const bytes = readFileSync(file)
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
  const metadata = hyparquet.parquetMetadata(buffer)
  const schema = metadata.schema.map(e => ({
    name: e.name,
    type: e.type ?? null,
    repetition_type: e.repetition_type ?? null,
    converted_type: e.converted_type ?? null,
    num_children: e.num_children ?? 0,
  }))
  const rows = await hyparquet.parquetReadObjects({ file: buffer })
  const replacer = (_key, value) => {
    if (typeof value !== 'bigint') return value
    return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString()
  }
  process.stdout.write(JSON.stringify({ schema, rows }, replacer) + '\n')
} catch (error) {
  console.error(`read_parquet.mjs: ${file}: ${error.stack ?? error}`)
  process.exit(1)
}
