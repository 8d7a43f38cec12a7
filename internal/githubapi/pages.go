package githubapi

import (
	"context"

	"github.com/google/go-github/v75/github"
)

// MaxPerPage is the most rows GitHub answers in one page.
const MaxPerPage = 100

// Listed is a list read up to a limit.
type Listed[T any] struct {
	Items []T
	// Total is how many there are in all: exact when every page was read,
	// or when the last page was (one request more); -1 when unknown.
	Total int
}

// More reports whether the list was cut at its limit.
func (l Listed[T]) More() bool { return l.Total > len(l.Items) }

// List reads a list page by page (the Link header's next) until it has
// limit rows or there are no more, asking for min(limit, 100) rows a page.
// When it stops early it reads the last page to say the total.
func List[T any](ctx context.Context, limit int, fetch func(ctx context.Context, o github.ListOptions) ([]T, *github.Response, error)) (Listed[T], error) {
	out := Listed[T]{Total: -1}
	if limit <= 0 {
		limit = 30
	}
	per := min(limit, MaxPerPage)
	o := github.ListOptions{PerPage: per, Page: 1}
	for {
		rows, resp, err := fetch(ctx, o)
		if err != nil {
			return out, err
		}
		out.Items = append(out.Items, rows...)
		if len(out.Items) >= limit || resp.NextPage == 0 {
			if resp.NextPage == 0 {
				out.Total = len(out.Items)
			}
			if len(out.Items) > limit {
				out.Items = out.Items[:limit]
			}
			if resp.NextPage != 0 && resp.LastPage > 0 {
				last, _, err := fetch(ctx, github.ListOptions{PerPage: per, Page: resp.LastPage})
				if err == nil {
					out.Total = (resp.LastPage-1)*per + len(last)
				}
			}
			return out, nil
		}
		o.Page = resp.NextPage
	}
}
