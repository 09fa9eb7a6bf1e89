package audit

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/bits"
	"slices"
)

// The index is a file beside the log, Path + IndexSuffix, that says where each
// record's line starts and how long it is, by correlation id and by prompt
// hash, so that a lookup reads only the lines it wants. It is a cache: the
// log is the truth, every line the index names is read and checked before
// it is believed, and an index that does not check out is built again from
// the log.
//
// Layout, all integers big-endian:
//
//	header  64 bytes
//	  0  8  magic "TESSIDX1"
//	  8  8  nBase, the number of entries in the sorted part
//	 16  8  end, the log bytes the sorted part covers (the end of its last line)
//	 24 32  that last line's entry, the fingerprint of the log at end
//	 56  4  zero
//	 60  4  CRC-32C of bytes 0-59
//	sorted part  nBase entries, ordered by key, kind and offset
//	tail         entries appended since, in log order
//
//	entry  32 bytes
//	  0  8  key: FNV-1a of the kind and the id or hash (0 for a bad line)
//	  8  1  kind: 0 a line that is not a record, 1 correlation id,
//	        2 prompt hash; bit 7 set on the last entry of a line
//	  9  6  offset of the line in the log
//	 15  5  line number, from 1
//	 20  4  length of the line with its '\n'
//	 24  4  CRC-32C of the line with its '\n'
//	 28  4  check of bytes 0-27 (entrySum)
//
// The tail is appended under the log's lock, right after the record. The
// log bytes the whole index covers end where the tail's last complete line
// ends (a line is complete at its entry with bit 7), or at end when the
// tail is empty; entries after the last complete line are a write that did
// not finish, and are ignored and cut off by the next writer. When the tail
// outgrows a sixteenth of the sorted part, the two are merged into a new
// file that replaces the old one by rename.

// IndexSuffix is added to a log's path to name its index.
const IndexSuffix = ".idx"

const (
	idxMagic = "TESSIDX1"
	hdrSize  = 64
	entSize  = 32

	kindBad  byte = 0
	kindID   byte = 1
	kindHash byte = 2
	kindMask byte = 0x7f
	// lastOfLine marks the last entry of a line: the line is in the index
	// only once this entry is.
	lastOfLine byte = 0x80

	maxIdxOff  = 1<<48 - 1
	maxIdxLine = 1<<40 - 1
	maxIdxLen  = 1<<32 - 1
)

// The tail is merged into the sorted part when it holds more than
// max(compactMin, nBase/compactDiv) entries; an append indexes at most
// catchUpMax bytes of lines that other writers left out. Variables, so
// that tests can make these happen often.
var (
	compactMin int64 = 4096
	compactDiv int64 = 16
	catchUpMax int64 = 1 << 20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func lineCRC(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// keyOf is the index key of an id (kindID) or a prompt hash (kindHash):
// 64-bit FNV-1a of the kind and the text. Two texts may share a key; the
// lines a lookup reads are checked, so a shared key costs a read, not a
// wrong answer.
func keyOf(kind byte, value string) uint64 {
	if kind == kindBad {
		return 0
	}
	const prime = 1099511628211
	h := uint64(14695981039346656037)
	h = (h ^ uint64(kind)) * prime
	for i := 0; i < len(value); i++ {
		h = (h ^ uint64(value[i])) * prime
	}
	return h
}

// entry is one index entry: a log line and one of its keys.
type entry struct {
	key  uint64
	kind byte
	off  int64
	line int64
	n    uint32
	crc  uint32
}

func (e entry) end() int64   { return e.off + int64(e.n) }
func (e entry) isLast() bool { return e.kind&lastOfLine != 0 }
func (e entry) kindOf() byte { return e.kind & kindMask }

// cmpEntry orders the sorted part: by key, kind and offset.
func cmpEntry(a, b entry) int {
	switch {
	case a.key != b.key:
		if a.key < b.key {
			return -1
		}
		return 1
	case a.kindOf() != b.kindOf():
		return int(a.kindOf()) - int(b.kindOf())
	case a.off != b.off:
		if a.off < b.off {
			return -1
		}
		return 1
	}
	return 0
}

func (e entry) put(b []byte) {
	binary.BigEndian.PutUint64(b[0:8], e.key)
	b[8] = e.kind
	putUint(b[9:15], uint64(e.off))
	putUint(b[15:20], uint64(e.line))
	binary.BigEndian.PutUint32(b[20:24], e.n)
	binary.BigEndian.PutUint32(b[24:28], e.crc)
	binary.BigEndian.PutUint32(b[28:32], entrySum(b))
}

// entrySum is the check of an entry's first 28 bytes: a multiply-xor mix
// of its words, so that a lookup can check every entry of a long tail in
// a few nanoseconds each. It tells an entry from a torn or zeroed write,
// or a changed byte, as a CRC would, but is no defence against a forger;
// nothing in the index is, which is why every line it names is checked.
func entrySum(b []byte) uint32 {
	_ = b[27]
	h := binary.LittleEndian.Uint64(b[0:8]) * 0x9e3779b97f4a7c15
	h ^= bits.RotateLeft64(binary.LittleEndian.Uint64(b[8:16])*0xc2b2ae3d27d4eb4f, 31)
	h ^= bits.RotateLeft64(binary.LittleEndian.Uint64(b[16:24])*0x165667b19e3779f9, 17)
	h ^= (uint64(binary.LittleEndian.Uint32(b[24:28])) + 0x27d4eb2f165667c5) * 0x94d049bb133111eb
	h ^= h >> 29
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 32
	return uint32(h)
}

// getEntry decodes an entry, reporting false if its checksum or fields are
// not those of an entry this package writes.
func getEntry(b []byte) (entry, bool) {
	if entrySum(b) != binary.BigEndian.Uint32(b[28:32]) {
		return entry{}, false
	}
	_ = b[31]
	w := binary.BigEndian.Uint64(b[8:16]) // kind, offset, the line's top byte
	e := entry{
		key:  binary.BigEndian.Uint64(b[0:8]),
		kind: b[8],
		off:  int64(w >> 8 & maxIdxOff),
		line: int64(w&0xff)<<32 | int64(binary.BigEndian.Uint32(b[16:20])),
		n:    binary.BigEndian.Uint32(b[20:24]),
		crc:  binary.BigEndian.Uint32(b[24:28]),
	}
	if e.kindOf() > kindHash || e.n == 0 || e.line == 0 || e.kindOf() == kindBad && e.key != 0 {
		return entry{}, false
	}
	return e, true
}

func putUint(b []byte, v uint64) {
	for i := len(b) - 1; i >= 0; i-- {
		b[i] = byte(v)
		v >>= 8
	}
}

// lineEntries appends the entries of one complete log line at off, line
// number no: none for a blank line, one for a line that is not a record
// (bad), else one for its prompt hash and one for its correlation id, the
// last.
func lineEntries(ents []entry, off, no int64, text []byte, r *Record, bad bool) ([]entry, error) {
	switch {
	case off > maxIdxOff:
		return ents, fmt.Errorf("line %d starts at byte %d, past what the index can hold", no, off)
	case no > maxIdxLine:
		return ents, fmt.Errorf("line %d is past what the index can number", no)
	case int64(len(text)) > maxIdxLen:
		return ents, fmt.Errorf("line %d is %d bytes long, more than the index can hold", no, len(text))
	}
	e := entry{off: off, line: no, n: uint32(len(text)), crc: lineCRC(text)}
	if bad {
		e.kind = kindBad | lastOfLine
		return append(ents, e), nil
	}
	h := e
	h.kind, h.key = kindHash, keyOf(kindHash, r.AssembledPromptHash)
	ents = append(ents, h)
	e.kind, e.key = kindID|lastOfLine, keyOf(kindID, r.CorrelationID)
	return append(ents, e), nil
}

// header is the index's header.
type header struct {
	nBase int64
	end   int64
	last  entry
}

func (h header) put(b []byte) {
	clear(b[:hdrSize])
	copy(b[0:8], idxMagic)
	binary.BigEndian.PutUint64(b[8:16], uint64(h.nBase))
	binary.BigEndian.PutUint64(b[16:24], uint64(h.end))
	if h.nBase > 0 {
		h.last.put(b[24:56])
	}
	binary.BigEndian.PutUint32(b[60:64], crc32.Checksum(b[:60], castagnoli))
}

var errNotIndex = errors.New("not a Tessera audit index")

func parseHeader(b []byte) (header, error) {
	if len(b) < hdrSize || string(b[0:8]) != idxMagic {
		return header{}, errNotIndex
	}
	if crc32.Checksum(b[:60], castagnoli) != binary.BigEndian.Uint32(b[60:64]) {
		return header{}, errors.New("its header is damaged")
	}
	h := header{nBase: int64(binary.BigEndian.Uint64(b[8:16])), end: int64(binary.BigEndian.Uint64(b[16:24]))}
	if h.nBase < 0 || h.end < 0 || binary.BigEndian.Uint32(b[56:60]) != 0 {
		return header{}, errors.New("its header is damaged")
	}
	if h.nBase == 0 {
		if h.end != 0 || !allZero(b[24:56]) {
			return header{}, errors.New("its header is damaged")
		}
		return h, nil
	}
	last, ok := getEntry(b[24:56])
	if !ok || !last.isLast() || last.end() != h.end {
		return header{}, errors.New("its header is damaged")
	}
	h.last = last
	return h, nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// indexView is an index file as read: its header and how far its tail
// goes.
type indexView struct {
	r       io.ReaderAt
	hdr     header
	tailOff int64 // where the tail starts
	nTail   int64 // tail entries up to the end of the last complete line
	size    int64 // where those end: where the next entry goes
	covered int64 // the log bytes indexed: the end of the last line
	last    entry // that line's last entry; zero when covered is 0
}

// openView reads an index's header and finds the end of its tail, reading
// back from the end of the file past any entries of an unfinished write.
// It reads a few entries, not the whole file.
func openView(r io.ReaderAt, fileSize int64) (*indexView, error) {
	if fileSize < hdrSize {
		return nil, errNotIndex
	}
	var hb [hdrSize]byte
	if _, err := r.ReadAt(hb[:], 0); err != nil {
		return nil, err
	}
	h, err := parseHeader(hb[:])
	if err != nil {
		return nil, err
	}
	if h.nBase > (fileSize-hdrSize)/entSize {
		return nil, errors.New("it is shorter than its header says")
	}
	v := &indexView{r: r, hdr: h, tailOff: hdrSize + h.nBase*entSize, covered: h.end, last: h.last}
	v.size = v.tailOff
	n := (fileSize - v.tailOff) / entSize
	var buf []byte
	for hi, chunk := n, int64(4); hi > 0; chunk = 2048 {
		lo := max(0, hi-chunk)
		buf = slices.Grow(buf[:0], int((hi-lo)*entSize))[:(hi-lo)*entSize]
		if _, err := r.ReadAt(buf, v.tailOff+lo*entSize); err != nil {
			return nil, err
		}
		for j := hi - 1; j >= lo; j-- {
			e, ok := getEntry(buf[(j-lo)*entSize:])
			if !ok || !e.isLast() {
				continue
			}
			if e.off < h.end || e.line <= h.last.line {
				return nil, errors.New("its tail goes back before its sorted part")
			}
			v.nTail, v.size, v.covered, v.last = j+1, v.tailOff+(j+1)*entSize, e.end(), e
			return v, nil
		}
		hi = lo
	}
	return v, nil
}

// scanTail checks every entry of the tail (each entry whole, lines in log
// order, every entry of a line naming the same line) and calls fn, in
// order, for each one that keep, if not nil, accepts by key and kind. A
// lookup reads the whole tail, so this loop decodes only what it must.
func (v *indexView) scanTail(keep func(key uint64, kind byte) bool, fn func(entry)) error {
	prevEnd, prevLine := v.hdr.end, v.hdr.last.line
	var cur [entSize]byte // the first entry of the line under way
	open := false
	const chunk = 2048
	buf := make([]byte, min(v.nTail, chunk)*entSize)
	for lo := int64(0); lo < v.nTail; lo += chunk {
		b := buf[:min(v.nTail-lo, chunk)*entSize]
		if _, err := v.r.ReadAt(b, v.tailOff+lo*entSize); err != nil {
			return err
		}
		for j := 0; j+entSize <= len(b); j += entSize {
			eb := b[j : j+entSize]
			if entrySum(eb) != binary.BigEndian.Uint32(eb[28:32]) || eb[8]&kindMask > kindHash {
				return fmt.Errorf("entry %d of its tail is damaged", lo+int64(j/entSize))
			}
			if open {
				if !bytes.Equal(eb[9:28], cur[9:28]) {
					return fmt.Errorf("entry %d of its tail breaks into a line", lo+int64(j/entSize))
				}
			} else {
				w := binary.BigEndian.Uint64(eb[8:16])
				off, line := int64(w>>8&maxIdxOff), int64(w&0xff)<<32|int64(binary.BigEndian.Uint32(eb[16:20]))
				if off < prevEnd || line <= prevLine {
					return fmt.Errorf("entry %d of its tail is out of order", lo+int64(j/entSize))
				}
				copy(cur[:], eb)
				open = true
			}
			key, kind := binary.BigEndian.Uint64(eb[0:8]), eb[8]&kindMask
			if eb[8]&lastOfLine != 0 {
				open = false
				prevEnd = int64(binary.BigEndian.Uint64(eb[8:16])>>8&maxIdxOff) + int64(binary.BigEndian.Uint32(eb[20:24]))
				prevLine = int64(eb[15])<<32 | int64(binary.BigEndian.Uint32(eb[16:20]))
			}
			if keep == nil || keep(key, kind) {
				e, ok := getEntry(eb)
				if !ok {
					return fmt.Errorf("entry %d of its tail is damaged", lo+int64(j/entSize))
				}
				fn(e)
			}
		}
	}
	return nil
}

// baseFind returns the sorted part's entries with the key and kind: a
// binary search, reading one entry per step, then the run that matches.
func (v *indexView) baseFind(key uint64, kind byte) ([]entry, error) {
	want := entry{key: key, kind: kind}
	var b [entSize]byte
	lo, hi := int64(0), v.hdr.nBase
	for lo < hi {
		mid := int64(uint64(lo+hi) >> 1)
		if _, err := v.r.ReadAt(b[:], hdrSize+mid*entSize); err != nil {
			return nil, err
		}
		e, ok := getEntry(b[:])
		if !ok {
			return nil, fmt.Errorf("entry %d of its sorted part is damaged", mid)
		}
		if e.key < key || e.key == key && e.kindOf() < kind {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	var out []entry
	const chunk = 64
	var buf [chunk * entSize]byte
	for i := lo; i < v.hdr.nBase; i += chunk {
		bb := buf[:min(v.hdr.nBase-i, chunk)*entSize]
		if _, err := v.r.ReadAt(bb, hdrSize+i*entSize); err != nil {
			return nil, err
		}
		for j := 0; j < len(bb); j += entSize {
			e, ok := getEntry(bb[j:])
			if !ok {
				return nil, fmt.Errorf("entry %d of its sorted part is damaged", i+int64(j/entSize))
			}
			if e.key != want.key || e.kindOf() != kind {
				return out, nil
			}
			if e.end() > v.hdr.end {
				return nil, fmt.Errorf("entry %d of its sorted part is past the end it covers", i+int64(j/entSize))
			}
			out = append(out, e)
		}
	}
	return out, nil
}

// lookup returns the entries of the lines with the key of kind and value,
// and those of the lines that are not records, each in log order.
func (v *indexView) lookup(kind byte, value string) (recs, bads []entry, err error) {
	key := keyOf(kind, value)
	if recs, err = v.baseFind(key, kind); err != nil {
		return nil, nil, err
	}
	if bads, err = v.baseFind(0, kindBad); err != nil {
		return nil, nil, err
	}
	err = v.scanTail(func(k uint64, kd byte) bool { return k == key && kd == kind || kd == kindBad }, func(e entry) {
		if e.kindOf() == kindBad {
			bads = append(bads, e)
		} else {
			recs = append(recs, e)
		}
	})
	if err != nil {
		return nil, nil, err
	}
	return byOffset(recs), byOffset(bads), nil
}

// byOffset sorts entries into log order and drops repeats of a line.
func byOffset(es []entry) []entry {
	slices.SortFunc(es, func(a, b entry) int {
		switch {
		case a.off < b.off:
			return -1
		case a.off > b.off:
			return 1
		}
		return 0
	})
	return slices.CompactFunc(es, func(a, b entry) bool { return a.off == b.off })
}

// readLine reads the log line an entry names and checks that it is that
// line: it starts a line, ends in '\n' and has the entry's checksum. buf,
// if not nil, is a buffer to reuse.
func readLine(log io.ReaderAt, e entry, buf *[]byte) ([]byte, error) {
	start := max(e.off-1, 0)
	need := int(e.end() - start)
	var b []byte
	if buf != nil {
		b = *buf
	}
	if cap(b) < need {
		b = make([]byte, need)
		if buf != nil {
			*buf = b
		}
	}
	b = b[:need]
	if _, err := log.ReadAt(b, start); err != nil {
		return nil, fmt.Errorf("line %d at byte %d: %w", e.line, e.off, err)
	}
	if e.off > 0 {
		if b[0] != '\n' {
			return nil, fmt.Errorf("byte %d, where line %d starts, does not start a line", e.off, e.line)
		}
		b = b[1:]
	}
	if b[len(b)-1] != '\n' || lineCRC(b) != e.crc {
		return nil, fmt.Errorf("line %d at byte %d is not the line that was indexed", e.line, e.off)
	}
	return b, nil
}
