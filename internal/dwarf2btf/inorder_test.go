package dwarf2btf

import (
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestInOrder runs inOrder as convertUnits does, with a joiner that takes
// the units' results in order and only then returns their scratch items to
// the pool, on many small batches whose units take random times: every
// batch must finish (a unit waiting for an item the joiner can only return
// after that very unit is a deadlock), each unit run once, with an item
// nobody else holds. Every other batch has a before function that now and
// then keeps a goroutine waiting, as a dedup.Stream's Hold does.
func TestInOrder(t *testing.T) {
	for _, jobs := range []int{1, 2, 3, 8} {
		for round := range 300 {
			n := rand.IntN(40)
			pool := make(chan int, jobs+2)
			for k := range cap(pool) {
				pool <- k
			}
			done := make([]chan int, n)
			for i := range done {
				done[i] = make(chan int, 1)
			}
			var held [16]bool
			var busy [8]atomic.Int32
			joined := make(chan bool)
			go func() {
				ok := true
				for i := range done {
					c := <-done[i]
					if !held[c] {
						ok = false
					}
					held[c] = false
					pool <- c
				}
				joined <- ok
			}()
			var before func()
			if round%2 == 1 {
				before = func() {
					if rand.IntN(10) == 0 {
						time.Sleep(time.Duration(rand.IntN(100)) * time.Microsecond)
					}
				}
			}
			finished := make(chan struct{})
			go func() {
				inOrder(n, jobs, pool, before, func(g, i int, c int) {
					if g < 0 || g >= jobs {
						t.Errorf("jobs %d: goroutine index %d", jobs, g)
						return
					}
					if busy[g].Add(1) != 1 {
						t.Errorf("jobs %d: goroutine index %d given to two running units", jobs, g)
					}
					defer busy[g].Add(-1)
					if held[c] {
						t.Errorf("jobs %d: item %d handed out twice", jobs, c)
					}
					held[c] = true
					for range rand.IntN(3) {
						runtime.Gosched()
					}
					if rand.IntN(50) == 0 {
						time.Sleep(time.Duration(rand.IntN(200)) * time.Microsecond)
					}
					done[i] <- c
				})
				close(finished)
			}()
			select {
			case <-finished:
			case <-time.After(10 * time.Second):
				t.Fatalf("jobs %d, round %d, %d units: inOrder did not finish", jobs, round, n)
			}
			if !<-joined {
				t.Fatalf("jobs %d, round %d: a unit was joined without the item it ran with", jobs, round)
			}
			if len(pool) != cap(pool) {
				t.Fatalf("jobs %d, round %d: %d of %d items back in the pool", jobs, round, len(pool), cap(pool))
			}
		}
	}
}
