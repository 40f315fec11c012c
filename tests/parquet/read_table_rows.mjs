// The rows of a Delta table's active files as an independent reader sees
// them: each data file read with hyparquet (plain JavaScript, no DuckDB),
// its partition values added from the log, and the rows its deletion vector
// removes left out. The deletion vectors are decoded here, from the
// protocol's text (Z85, the DV file's frame and CRC-32, the
// RoaringBitmapArray and Roaring's portable format), sharing no code with
// the C++ reader under test.
//
// With a schema, rows are given under the schema's logical names, as the
// protocol's column mapping says: in "name" mode every column, nested ones
// too, is found by its physical name; in "id" mode top-level columns by
// their Parquet field_id (nested ones by physical name); partition values
// by physical name. Variants are decoded here too, from Parquet's Variant
// binary encoding, into the values they hold.
//
// usage: node read_table_rows.mjs HYPARQUET_DIR FILES_JSON
// FILES_JSON: {"root": "/local/table/dir", "schema": {...} (the metaData's
// schemaString, parsed; optional), "partitionColumns": [...], "mode":
// "none" | "name" | "id", "files": [{"path": "p=1/a.parquet" (URI-encoded,
// relative), "partitionValues": {...}, "deletionVector": {...} or absent}]}.
// Prints {"rows": [...]} (INT64 as numbers when exact, else strings), or,
// given "sumColumns": [...], {"count": n, "sums": {column: sum}}. Exits 1
// with a message on stderr on failure.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

const Z85 = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#'

function z85Decode(text) {
  if (text.length % 5 !== 0) throw new Error(`Z85 length ${text.length}`)
  const out = []
  for (let i = 0; i < text.length; i += 5) {
    let value = 0
    for (let j = i; j < i + 5; j++) {
      const digit = Z85.indexOf(text[j])
      if (digit < 0) throw new Error(`Z85 character ${text[j]}`)
      value = value * 85 + digit
    }
    out.push((value >>> 24) & 0xff, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff)
  }
  return Uint8Array.from(out)
}

function uuidText(bytes) {
  const hex = [...bytes].map(b => b.toString(16).padStart(2, '0')).join('')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})
function crc32(bytes) {
  let c = 0xffffffff
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

// One 32-bit Roaring bitmap in the portable format at `at`: its values and
// where it ends.
function roaring32(view, at) {
  const cookie = view.getUint32(at, true)
  let count, runs = null
  if ((cookie & 0xffff) === 12347) {
    count = (cookie >>> 16) + 1
    at += 4
    runs = new Uint8Array(view.buffer, view.byteOffset + at, (count + 7) >> 3)
    at += (count + 7) >> 3
  } else if (cookie === 12346) {
    count = view.getUint32(at + 4, true)
    at += 8
  } else {
    throw new Error(`Roaring cookie ${cookie}`)
  }
  const keys = [], cards = []
  for (let i = 0; i < count; i++) {
    keys.push(view.getUint16(at, true))
    cards.push(view.getUint16(at + 2, true) + 1)
    at += 4
  }
  if (runs === null || count >= 4) at += 4 * count  // the offset header
  const values = []
  for (let i = 0; i < count; i++) {
    const high = keys[i] * 65536
    if (runs !== null && (runs[i >> 3] >> (i & 7)) & 1) {
      const n = view.getUint16(at, true)
      at += 2
      for (let r = 0; r < n; r++) {
        const start = view.getUint16(at, true), length = view.getUint16(at + 2, true)
        at += 4
        for (let v = start; v <= start + length; v++) values.push(high + v)
      }
    } else if (cards[i] > 4096) {
      for (let w = 0; w < 8192; w++) {
        const byte = view.getUint8(at + w)
        for (let b = 0; b < 8; b++) if ((byte >> b) & 1) values.push(high + w * 8 + b)
      }
      at += 8192
    } else {
      for (let k = 0; k < cards[i]; k++) values.push(high + view.getUint16(at + 2 * k, true))
      at += 2 * cards[i]
    }
  }
  return { values, end: at }
}

// The RoaringBitmapArray: magic number, bucket count, then (key, bitmap).
function deletedRows(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (view.getUint32(0, true) !== 1681511377) throw new Error('DV magic number')
  const buckets = Number(view.getBigUint64(4, true))
  let at = 12
  const rows = new Set()
  for (let b = 0; b < buckets; b++) {
    const key = view.getUint32(at, true)
    const { values, end } = roaring32(view, at + 4)
    for (const v of values) rows.add(key * 4294967296 + v)
    at = end
  }
  return rows
}

function dvBytes(root, dv) {
  if (dv.storageType === 'i') return z85Decode(dv.pathOrInlineDv).slice(0, dv.sizeInBytes)
  if (dv.storageType !== 'u') throw new Error(`DV storage type ${dv.storageType}`)
  const text = dv.pathOrInlineDv
  const prefix = text.slice(0, text.length - 20)
  const name = `deletion_vector_${uuidText(z85Decode(text.slice(text.length - 20)))}.bin`
  const file = readFileSync(join(root, prefix, name))
  if (file[0] !== 1) throw new Error(`DV file version ${file[0]}`)
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength)
  const offset = dv.offset ?? 0
  const size = view.getUint32(offset, false)
  if (size !== dv.sizeInBytes) throw new Error(`DV size ${size}, descriptor ${dv.sizeInBytes}`)
  const data = file.subarray(offset + 4, offset + 4 + size)
  if (crc32(data) !== view.getUint32(offset + 4 + size, false)) throw new Error('DV checksum')
  return data
}

// A variant (Parquet's Variant binary encoding: `metadata`, a string
// dictionary, and a self-describing `value`) as the JavaScript value it
// holds, decoded here from the encoding's text, apart from the C++ reader.
function variantValue(valueBytes, metadataBytes) {
  const le = (bytes, at, n) => {
    let v = 0
    for (let i = n - 1; i >= 0; i--) v = v * 256 + bytes[at + i]
    return v
  }
  const text = bytes => new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  const header = metadataBytes[0]
  if ((header & 15) !== 1) throw new Error(`variant metadata version ${header & 15}`)
  const offsetSize = (header >> 6) + 1
  const count = le(metadataBytes, 1, offsetSize)
  const stringsAt = 1 + offsetSize * (count + 2)
  const keys = []
  for (let i = 0; i < count; i++) {
    const start = le(metadataBytes, 1 + offsetSize * (i + 1), offsetSize)
    const end = le(metadataBytes, 1 + offsetSize * (i + 2), offsetSize)
    keys.push(text(metadataBytes.subarray(stringsAt + start, stringsAt + end)))
  }
  const decode = bytes => {
    const basic = bytes[0] & 3, head = bytes[0] >> 2
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    if (basic === 1) return text(bytes.subarray(1, 1 + head))
    if (basic === 2 || basic === 3) {
      const large = basic === 2 ? (head >> 4) & 1 : (head >> 2) & 1
      const idSize = basic === 2 ? ((head >> 2) & 3) + 1 : 0
      const offSize = (head & 3) + 1
      const countSize = large ? 4 : 1
      const n = le(bytes, 1, countSize)
      const idsAt = 1 + countSize, offsAt = idsAt + n * idSize, valuesAt = offsAt + (n + 1) * offSize
      const element = i => decode(bytes.subarray(valuesAt + le(bytes, offsAt + i * offSize, offSize)))
      if (basic === 3) return Array.from({ length: n }, (_, i) => element(i))
      const out = {}
      for (let i = 0; i < n; i++) out[keys[le(bytes, idsAt + i * idSize, idSize)]] = element(i)
      return out
    }
    switch (head) {
      case 0: return null
      case 1: return true
      case 2: return false
      case 3: return view.getInt8(1)
      case 4: return view.getInt16(1, true)
      case 5: return view.getInt32(1, true)
      case 6: return view.getBigInt64(1, true)
      case 7: return view.getFloat64(1, true)
      case 14: return view.getFloat32(1, true)
      case 8: return view.getInt32(2, true) / 10 ** bytes[1]
      case 9: return Number(view.getBigInt64(2, true)) / 10 ** bytes[1]
      case 11: return new Date(view.getInt32(1, true) * 86400000).toISOString().slice(0, 10)
      case 16: return text(bytes.subarray(5, 5 + view.getUint32(1, true)))
      default: throw new Error(`variant primitive type ${head} not decoded here`)
    }
  }
  return decode(valueBytes)
}

function physicalName(field, mode) {
  if (mode === 'none') return field.name
  return field.metadata?.['delta.columnMapping.physicalName'] ?? field.name
}

// A value read under physical names, given under the logical ones.
function logical(value, type, mode) {
  if (value === null || value === undefined) return null
  if (type === 'variant') return variantValue(value.value, value.metadata)
  if (typeof type === 'string') return value
  if (type.type === 'struct') {
    const out = {}
    for (const f of type.fields) out[f.name] = logical(value[physicalName(f, mode)], f.type, mode)
    return out
  }
  if (type.type === 'array') return value.map(v => logical(v, type.elementType, mode))
  if (type.type === 'map') {
    const out = {}
    for (const [k, v] of Object.entries(value)) out[k] = logical(v, type.valueType, mode)
    return out
  }
  return value
}

// The file's top-level column names by Parquet field_id.
function namesById(metadata) {
  const out = new Map()
  let i = 1
  for (let child = 0; child < (metadata.schema[0].num_children ?? 0); child++) {
    const e = metadata.schema[i]
    if (e.field_id !== undefined) out.set(e.field_id, e.name)
    // Skip the element and everything under it.
    let pending = 1
    while (pending > 0) pending += (metadata.schema[i++].num_children ?? 0) - 1
  }
  return out
}

function logicalRow(row, file, metadata, table) {
  const { schema, partitionColumns = [], mode = 'none' } = table
  if (!schema) return { ...row, ...(file.partitionValues ?? {}) }
  const ids = mode === 'id' ? namesById(metadata) : null
  const out = {}
  for (const f of schema.fields) {
    const physical = physicalName(f, mode)
    if (partitionColumns.includes(f.name)) {
      out[f.name] = file.partitionValues?.[physical] ?? null
      continue
    }
    const name = ids ? ids.get(f.metadata?.['delta.columnMapping.id']) : physical
    out[f.name] = name === undefined ? null : logical(row[name], f.type, mode)
  }
  return out
}

const [dir, filesJson] = process.argv.slice(2)
if (!dir || !filesJson) {
  console.error('usage: node read_table_rows.mjs HYPARQUET_DIR FILES_JSON')
  process.exit(2)
}
try {
  const hyparquet = await import(pathToFileURL(join(dir, 'src', 'index.js')).href)
  const table = JSON.parse(readFileSync(filesJson, 'utf8'))
  const { root, files } = table
  const rows = []
  for (const f of files) {
    const bytes = readFileSync(join(root, decodeURIComponent(f.path)))
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
    const deleted = f.deletionVector ? deletedRows(dvBytes(root, f.deletionVector)) : new Set()
    if (f.deletionVector && deleted.size !== f.deletionVector.cardinality) {
      throw new Error(`${f.path}: DV holds ${deleted.size} rows, cardinality ${f.deletionVector.cardinality}`)
    }
    const metadata = hyparquet.parquetMetadata(buffer)
    // Binaries (a variant's two) as bytes when the table holds variants;
    // strings annotated as such still come as text.
    const utf8 = !JSON.stringify(table.schema ?? {}).includes('"variant"')
    const data = await hyparquet.parquetReadObjects({ file: buffer, utf8 })
    data.forEach((row, index) => {
      if (!deleted.has(index)) rows.push(logicalRow(row, f, metadata, table))
    })
  }
  // Big tables: the row count and, for `sumColumns`, each column's sum.
  if (table.sumColumns) {
    const sums = {}
    for (const c of table.sumColumns) {
      sums[c] = rows.reduce((total, row) => total + (row[c] === null ? 0 : Number(row[c])), 0)
    }
    process.stdout.write(JSON.stringify({ count: rows.length, sums }) + '\n')
    process.exit(0)
  }
  const replacer = (_key, value) => {
    if (typeof value !== 'bigint') return value
    return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString()
  }
  process.stdout.write(JSON.stringify({ rows }, replacer) + '\n')
} catch (error) {
  console.error(`read_table_rows.mjs: ${error.stack ?? error}`)
  process.exit(1)
}
