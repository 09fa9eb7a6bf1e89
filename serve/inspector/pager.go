package inspector

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// PageSize is how many rows a long list shows on one page.
const PageSize = 50

// pager is where one page of a list stands, for the "pager" template.
type pager struct {
	// ID names the pager's element.
	ID string
	// Page is the page shown, from 1; First and Last are its rows' places
	// in the list, from 1; Total is the list's length, 0 when it is not
	// known.
	Page, First, Last, Total int
	// Prev and Next link to the pages around, "" at an end.
	Prev, Next string
}

// pageNumber reads query parameter param as a page number: 1 when it is
// not there.
func pageNumber(r *http.Request, param string) (int, error) {
	s := r.URL.Query().Get(param)
	if s == "" {
		return 1, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 1_000_000 {
		return 0, fmt.Errorf("%w: page %q is not a whole number from 1", ErrInvalid, s)
	}
	return n, nil
}

// pageURL links to page n of base (a path) with query q, param set to
// n (and left out for the first page).
func pageURL(base string, q url.Values, param string, n int) string {
	q2 := url.Values{}
	for k, v := range q {
		q2[k] = v
	}
	q2.Del(param)
	if n > 1 {
		q2.Set(param, strconv.Itoa(n))
	}
	if len(q2) == 0 {
		return base
	}
	return base + "?" + q2.Encode()
}

// paginate returns page n of items (the last page when n is past it) and
// its pager; more says there are rows after items that the caller did
// not load, when Total is not known.
func paginate[T any](items []T, n int, base string, q url.Values, param, id string, more bool) ([]T, pager) {
	pages := max((len(items)+PageSize-1)/PageSize, 1)
	n = min(n, pages)
	lo, hi := (n-1)*PageSize, min(n*PageSize, len(items))
	p := pager{ID: id, Page: n, First: lo + 1, Last: hi, Total: len(items)}
	if more {
		p.Total = 0
	}
	if lo >= hi {
		p.First = 0
	}
	if n > 1 {
		p.Prev = pageURL(base, q, param, n-1)
	}
	if n < pages || more {
		p.Next = pageURL(base, q, param, n+1)
	}
	return items[lo:hi], p
}
