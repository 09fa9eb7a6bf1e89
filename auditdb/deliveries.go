package auditdb

import (
	"context"
	"fmt"
	"math"
	"time"
)

// Delivery is one webhook event's delivery to one endpoint, as tessera
// serve's delivery log shows it.
type Delivery struct {
	// ID numbers deliveries in the order they were kept, from 1.
	ID int64
	// EventID, Action, Prompt and Version say what the event was; URL
	// where it went.
	EventID, URL, Action, Prompt string
	Version                      int
	// Attempts were made; Status is the last answer's HTTP status (0 when
	// none came), Error what went wrong ("" when OK).
	Attempts, Status int
	Error            string
	OK               bool
	// At is when the last attempt ended, to the microsecond, in UTC.
	At time.Time
}

// AddDelivery keeps d and returns it with its ID, and At set to now when
// it was zero.
func (db *DB) AddDelivery(ctx context.Context, d Delivery) (Delivery, error) {
	if d.At.IsZero() {
		d.At = time.Now()
	}
	d.At = time.UnixMicro(d.At.UnixMicro()).UTC()
	ok := 0
	if d.OK {
		ok = 1
	}
	err := db.sql.QueryRowContext(ctx, db.q.addDelivery, d.EventID, d.URL, d.Action, d.Prompt, d.Version, d.Attempts, d.Status, d.Error, ok, d.At.UnixMicro()).Scan(&d.ID)
	if err != nil {
		return d, fmt.Errorf("audit database %s: keep the delivery of event %s to %s: %w", db.name, d.EventID, d.URL, err)
	}
	return d, nil
}

// Deliveries returns the deliveries kept, newest first: at most limit of
// them, or all when limit is 0 or less.
func (db *DB) Deliveries(ctx context.Context, limit int) ([]Delivery, error) {
	n := int64(limit)
	if limit <= 0 {
		n = math.MaxInt64
	}
	rows, err := db.sql.QueryContext(ctx, db.q.deliveries, n)
	if err != nil {
		return nil, fmt.Errorf("audit database %s: webhook deliveries: %w", db.name, err)
	}
	defer rows.Close()
	var out []Delivery
	for rows.Next() {
		var d Delivery
		var ok int
		var at int64
		if err := rows.Scan(&d.ID, &d.EventID, &d.URL, &d.Action, &d.Prompt, &d.Version, &d.Attempts, &d.Status, &d.Error, &ok, &at); err != nil {
			return nil, fmt.Errorf("audit database %s: webhook deliveries: %w", db.name, err)
		}
		d.OK, d.At = ok != 0, time.UnixMicro(at).UTC()
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("audit database %s: webhook deliveries: %w", db.name, err)
	}
	return out, nil
}

// ClaimEvent claims the sending of the event named key (such as
// "created pm_discovery.v1/pgc@3 <commit>") for the caller, and reports
// whether it got it: of the servers sharing the database that claim one
// key, exactly one gets it, and sends the event.
func (db *DB) ClaimEvent(ctx context.Context, key string) (bool, error) {
	res, err := db.sql.ExecContext(ctx, db.q.claimEvent, key, time.Now().UnixMicro())
	if err != nil {
		return false, fmt.Errorf("audit database %s: claim event %q: %w", db.name, key, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("audit database %s: claim event %q: %w", db.name, key, err)
	}
	return n == 1, nil
}
