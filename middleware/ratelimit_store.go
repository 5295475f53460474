package middleware

import (
	"context"
	"fmt"
	"hash/maphash"
	"sync"
	"time"
)

// MemoryRateStore is a [RateStore] that keeps token buckets in the process's
// memory, at most a fixed number of keys: when a new key arrives and the
// store is full, the least recently used key is dropped. A dropped key
// starts again with a full bucket, so the bound should exceed the number of
// clients active within a Window; meanwhile memory stays bounded however
// many distinct clients (or spoofed addresses) arrive. Keys are spread
// over 16 shards, each with its own lock and its own share of the bound.
// It is safe for concurrent use, and Take never returns an error.
//
// One store serves one [RateLimit]: two limiters sharing a store would
// share the buckets of equal keys.
type MemoryRateStore struct {
	seed   maphash.Seed
	shards []memoryShard
}

type memoryShard struct {
	mu      sync.Mutex
	index   map[string]int32 // key → position in entries
	entries []bucket         // at most max; a list from head (newest) to tail
	max     int
	head    int32 // most recently used entry; -1 when empty
	tail    int32 // least recently used entry; -1 when empty
	_       [64]byte
}

type bucket struct {
	key        string
	tokens     float64
	at         time.Time // when tokens was computed
	prev, next int32     // neighbours in the recency list; -1 at the ends
}

// NewMemoryRateStore returns a MemoryRateStore that holds at most maxKeys keys. A
// key costs about 150 bytes plus its length, so 10,000 keys take about
// 1.5 MB. It panics if maxKeys is not positive.
func NewMemoryRateStore(maxKeys int) *MemoryRateStore {
	if maxKeys <= 0 {
		panic(fmt.Sprintf("waltz: NewMemoryRateStore maxKeys is %d; it must be positive", maxKeys))
	}
	n := 16
	if maxKeys < 1024 {
		n = 1
	}
	return newMemoryStore(maxKeys, n)
}

func newMemoryStore(maxKeys, n int) *MemoryRateStore {
	s := &MemoryRateStore{seed: maphash.MakeSeed(), shards: make([]memoryShard, n)}
	for i := range s.shards {
		per := maxKeys / n
		if i < maxKeys%n {
			per++
		}
		s.shards[i] = memoryShard{index: make(map[string]int32, per), max: per, head: -1, tail: -1}
	}
	return s
}

// Take takes a token from key's bucket as [RateStore] describes. It allocates
// nothing once the store is full, except when the map that indexes a
// shard rehashes.
func (s *MemoryRateStore) Take(_ context.Context, key string, now time.Time, limit RatePolicy) (RateResult, error) {
	sh := &s.shards[0]
	if len(s.shards) > 1 {
		sh = &s.shards[maphash.String(s.seed, key)%uint64(len(s.shards))]
	}
	size := float64(limit.Requests)
	perSecond := size / limit.Window.Seconds()

	sh.mu.Lock()
	b := sh.lookup(key, now, size)
	if elapsed := now.Sub(b.at); elapsed > 0 {
		b.tokens = min(size, b.tokens+elapsed.Seconds()*perSecond)
		b.at = now
	}
	var res RateResult
	if b.tokens >= 1 {
		b.tokens--
		res.Allowed = true
	}
	res.Remaining = int(b.tokens)
	if next := float64(res.Remaining + 1); next <= size {
		res.Wait = seconds((next - b.tokens) / perSecond)
	}
	sh.mu.Unlock()
	return res, nil
}

// Len returns the number of keys the store holds.
func (s *MemoryRateStore) Len() int {
	n := 0
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		n += len(sh.index)
		sh.mu.Unlock()
	}
	return n
}

func seconds(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }

// lookup returns key's bucket, made most recently used, creating a full
// one, in place of the least recently used when the shard is full.
func (sh *memoryShard) lookup(key string, now time.Time, size float64) *bucket {
	if i, ok := sh.index[key]; ok {
		sh.unlink(i)
		sh.pushFront(i)
		return &sh.entries[i]
	}
	var i int32
	if len(sh.entries) < sh.max {
		sh.entries = append(sh.entries, bucket{})
		i = int32(len(sh.entries) - 1)
	} else {
		i = sh.tail
		sh.unlink(i)
		delete(sh.index, sh.entries[i].key)
	}
	sh.entries[i] = bucket{key: key, tokens: size, at: now}
	sh.index[key] = i
	sh.pushFront(i)
	return &sh.entries[i]
}

func (sh *memoryShard) unlink(i int32) {
	b := &sh.entries[i]
	if b.prev >= 0 {
		sh.entries[b.prev].next = b.next
	} else {
		sh.head = b.next
	}
	if b.next >= 0 {
		sh.entries[b.next].prev = b.prev
	} else {
		sh.tail = b.prev
	}
}

func (sh *memoryShard) pushFront(i int32) {
	b := &sh.entries[i]
	b.prev, b.next = -1, sh.head
	if sh.head >= 0 {
		sh.entries[sh.head].prev = i
	}
	sh.head = i
	if sh.tail < 0 {
		sh.tail = i
	}
}
