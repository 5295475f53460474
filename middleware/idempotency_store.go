package middleware

import (
	"context"
	"crypto/sha256"
	"fmt"
	"hash/maphash"
	"net/http"
	"sync"
	"time"
)

// Fingerprint identifies one request for [Idempotency]: the SHA-256 of
// its method, route pattern, path, query and body. A key used again with
// another fingerprint is a key reused for another request.
type Fingerprint [sha256.Size]byte

// IdempotencyAnswer is an answer [Idempotency] keeps to replay: the
// status, the header fields it is safe to send again (never Set-Cookie;
// see [IdempotencyOptions.ReplayHeaders]) and the body. A store keeps it
// as it is given and never modifies it, nor may its caller once it is
// stored or returned.
type IdempotencyAnswer struct {
	Status int         // 200 to 499
	Header http.Header // canonical field names
	Body   []byte      // the answer's body as sent, whole (bytes)
}

// IdempotencyClaim is what [IdempotencyStore.Claim] reports.
type IdempotencyClaim struct {
	// Claimed says the call claimed the key: the caller runs the request,
	// then Saves its answer or Releases the key, passing Token.
	Claimed bool

	// Token identifies this claim, so that a Save or Release after the
	// claim expired and another request claimed the key changes nothing.
	Token uint64

	// Fingerprint is the fingerprint of the request that holds the key,
	// when Claimed is false.
	Fingerprint Fingerprint

	// Answer is that request's answer, when Claimed is false; nil while
	// it is still running.
	Answer *IdempotencyAnswer
}

// IdempotencyStore keeps [Idempotency]'s keys, each with the state of
// its request: claimed (the request is running) or done (its answer
// kept). A key is the pair (scope, key): the same key in two scopes is
// two keys. Every method must be atomic per key, since requests with
// one key arrive at once, from any number of servers for a shared store.
//
//   - Claim claims key for a request with fingerprint fp, for lease: if
//     the key is free (never seen, released, or expired) it records the
//     claim and reports Claimed with a Token of its own; otherwise it
//     changes nothing and reports the fingerprint that holds the key and,
//     if that request is done, its answer. The claim lapses after lease,
//     so that a server that dies mid-request does not hold a key forever.
//   - Save replaces the claim that Token names with the done state and a,
//     kept for ttl from now; if the key is no longer held by that claim
//     (it lapsed, and may be another's now) it changes nothing.
//   - Release drops the claim that Token names, so that the next request
//     with the key runs; it changes nothing if another holds the key.
//
// A store returns an error when it cannot answer (a network error, a
// deadline passed); a call with a done context returns at once, and its
// error wraps the context's. [IdempotencyOptions.FailOpen] decides what
// a failed Claim means. [NewMemoryIdempotencyStore] keeps keys in the
// process; the module github.com/waltz-go/waltz/redisstore keeps them in
// Redis; the package middleware/idemtest checks a store from its tests.
type IdempotencyStore interface {
	Claim(ctx context.Context, scope, key string, fp Fingerprint, lease time.Duration) (IdempotencyClaim, error)
	Save(ctx context.Context, scope, key string, token uint64, a *IdempotencyAnswer, ttl time.Duration) error
	Release(ctx context.Context, scope, key string, token uint64) error
}

// MemoryIdempotencyStore is an [IdempotencyStore] in the process's memory,
// bounded in bytes: a key costs its scope and key's lengths, its answer's
// body and header lengths, and about 200 bytes; when a claim would take
// the store past its bound, the least recently claimed or saved keys are
// dropped, expired ones first as they are met. A dropped key is free
// again, so a retry after it runs again: give the bound room for the keys
// of a whole expiry. Keys are spread over 16 shards, each with its own
// lock and its share of the bound. It is safe for concurrent use, and its
// methods never return an error but a done context's.
//
// One store serves one [Idempotency], or several whose scopes differ.
type MemoryIdempotencyStore struct {
	seed   maphash.Seed
	shards []idemShard
}

type idemKey struct{ scope, key string }

type idemShard struct {
	mu         sync.Mutex
	index      map[idemKey]*idemEntry
	head, tail *idemEntry // most and least recently touched
	bytes, max int64
	token      uint64 // the last token handed out
	_          [64]byte
}

type idemEntry struct {
	k          idemKey
	fp         Fingerprint
	token      uint64
	answer     *IdempotencyAnswer // nil while claimed
	expires    time.Time
	size       int64
	prev, next *idemEntry
}

// idemEntryBytes is what an entry costs besides its strings and answer.
const idemEntryBytes = 200

// NewMemoryIdempotencyStore returns a MemoryIdempotencyStore that holds at
// most maxBytes bytes of keys and answers, as counted in
// [MemoryIdempotencyStore]: 64 MiB keeps 100,000 answers of 500 bytes. It
// panics if maxBytes is under 64 KiB.
func NewMemoryIdempotencyStore(maxBytes int64) *MemoryIdempotencyStore {
	if maxBytes < 64<<10 {
		panic(fmt.Sprintf("waltz: NewMemoryIdempotencyStore maxBytes is %d; it must be at least 64 KiB", maxBytes))
	}
	n := 16
	if maxBytes < 16<<20 {
		n = 1
	}
	s := &MemoryIdempotencyStore{seed: maphash.MakeSeed(), shards: make([]idemShard, n)}
	for i := range s.shards {
		s.shards[i] = idemShard{index: map[idemKey]*idemEntry{}, max: maxBytes / int64(n)}
	}
	return s
}

func (s *MemoryIdempotencyStore) shard(k idemKey) *idemShard {
	if len(s.shards) == 1 {
		return &s.shards[0]
	}
	h := maphash.String(s.seed, k.key) ^ maphash.String(s.seed, k.scope)
	return &s.shards[h%uint64(len(s.shards))]
}

// Claim claims (scope, key) as [IdempotencyStore] describes. A claim costs
// one allocation (its entry); a key that is held costs none.
func (s *MemoryIdempotencyStore) Claim(ctx context.Context, scope, key string, fp Fingerprint, lease time.Duration) (IdempotencyClaim, error) {
	if err := ctx.Err(); err != nil {
		return IdempotencyClaim{}, err
	}
	k := idemKey{scope, key}
	sh := s.shard(k)
	now := time.Now()
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if e := sh.index[k]; e != nil {
		if now.Before(e.expires) {
			return IdempotencyClaim{Fingerprint: e.fp, Answer: e.answer}, nil
		}
		sh.drop(e)
	}
	sh.token++
	e := &idemEntry{k: k, fp: fp, token: sh.token, expires: now.Add(lease),
		size: int64(len(scope)+len(key)) + idemEntryBytes}
	sh.index[k] = e
	sh.bytes += e.size
	sh.pushFront(e)
	sh.trim(now)
	return IdempotencyClaim{Claimed: true, Token: e.token}, nil
}

// Save keeps a for (scope, key) as [IdempotencyStore] describes. An answer
// larger than the shard's bound is not kept: the key is released.
func (s *MemoryIdempotencyStore) Save(ctx context.Context, scope, key string, token uint64, a *IdempotencyAnswer, ttl time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	k := idemKey{scope, key}
	sh := s.shard(k)
	now := time.Now()
	sh.mu.Lock()
	defer sh.mu.Unlock()
	e := sh.index[k]
	if e == nil || e.token != token || e.answer != nil || !now.Before(e.expires) {
		return nil
	}
	size := int64(len(scope)+len(key)+len(a.Body)) + idemEntryBytes
	for name, vs := range a.Header {
		size += int64(len(name))
		for _, v := range vs {
			size += int64(len(v)) + 16
		}
	}
	if size > sh.max {
		sh.drop(e)
		return nil
	}
	sh.bytes += size - e.size
	e.size, e.answer, e.expires = size, a, now.Add(ttl)
	sh.unlink(e)
	sh.pushFront(e)
	sh.trim(now)
	return nil
}

// Release frees (scope, key) as [IdempotencyStore] describes.
func (s *MemoryIdempotencyStore) Release(ctx context.Context, scope, key string, token uint64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	k := idemKey{scope, key}
	sh := s.shard(k)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if e := sh.index[k]; e != nil && e.token == token && e.answer == nil {
		sh.drop(e)
	}
	return nil
}

// Len returns the number of keys the store holds, expired ones not yet
// dropped included.
func (s *MemoryIdempotencyStore) Len() int {
	n := 0
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		n += len(sh.index)
		sh.mu.Unlock()
	}
	return n
}

// Bytes returns the bytes the store counts against its bound.
func (s *MemoryIdempotencyStore) Bytes() int64 {
	var n int64
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		n += sh.bytes
		sh.mu.Unlock()
	}
	return n
}

// trim drops entries from the least recently touched end while the shard
// is over its bound or the entry there has expired; the newest entry, the
// one just touched, stays.
func (sh *idemShard) trim(now time.Time) {
	for t := sh.tail; t != nil && t != sh.head && (sh.bytes > sh.max || !now.Before(t.expires)); t = sh.tail {
		sh.drop(t)
	}
}

func (sh *idemShard) drop(e *idemEntry) {
	sh.unlink(e)
	delete(sh.index, e.k)
	sh.bytes -= e.size
}

func (sh *idemShard) unlink(e *idemEntry) {
	if e.prev != nil {
		e.prev.next = e.next
	} else {
		sh.head = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	} else {
		sh.tail = e.prev
	}
	e.prev, e.next = nil, nil
}

func (sh *idemShard) pushFront(e *idemEntry) {
	e.prev, e.next = nil, sh.head
	if sh.head != nil {
		sh.head.prev = e
	}
	sh.head = e
	if sh.tail == nil {
		sh.tail = e
	}
}
