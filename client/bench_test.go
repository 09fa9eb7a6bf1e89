package client

import (
	"context"
	"testing"
)

// BenchmarkGetCached is a Get served from the cache, within its TTL,
// from every core at once.
func BenchmarkGetCached(b *testing.B) {
	srv := newFakeServer(b)
	srv.add("review/code", "Review {{file}}.", "production")
	c, err := New(Options{BaseURL: srv.URL, PublicKey: "pk-test", SecretKey: "sk-test"})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if _, err := c.Get(ctx, "review/code", GetOptions{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.Get(ctx, "review/code", GetOptions{}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkGetUncached is a Get that asks the server every time (TTL
// < 0), over loopback HTTP.
func BenchmarkGetUncached(b *testing.B) {
	srv := newFakeServer(b)
	srv.add("review/code", "Review {{file}}.", "production")
	c, err := New(Options{BaseURL: srv.URL, PublicKey: "pk-test", SecretKey: "sk-test", TTL: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Get(ctx, "review/code", GetOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
