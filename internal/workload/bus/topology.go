package bus

import (
	"context"
	"fmt"
	"net"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/iobench/iobench/internal/service"
)

// bindExchange makes the named exchange of t anew (deleted, then declared durable with its type,
// as both seed apps declared theirs) and binds the command queue to it with t's routing key. The
// Broker interface has no exchanges, so this speaks AMQP itself, over a connection of its own.
// The run owns the exchange as it owns the queues: one of another type is replaced.
func bindExchange(ctx context.Context, url string, t Topology) error {
	if t.Exchange == "" {
		return nil
	}
	d := net.Dialer{}
	conn, err := amqp091.DialConfig(url, amqp091.Config{Dial: func(network, addr string) (net.Conn, error) {
		return d.DialContext(ctx, network, addr)
	}})
	if err != nil {
		return fmt.Errorf("%w: cannot connect to %s to declare exchange %s: %v", ErrBadInput, service.Redact(url), t.Exchange, err)
	}
	defer conn.Close()
	done := make(chan error, 1)
	go func() { done <- declareExchange(conn, t) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		_ = conn.Close()
		return fmt.Errorf("declaring exchange %s: %w", t.Exchange, ctx.Err())
	}
}

func declareExchange(conn *amqp091.Connection, t Topology) error {
	ch, err := conn.Channel()
	if err != nil {
		return fmt.Errorf("opening a channel: %w", err)
	}
	defer ch.Close()
	if err := ch.ExchangeDelete(t.Exchange, false, false); err != nil {
		return fmt.Errorf("deleting exchange %s: %w", t.Exchange, err)
	}
	if err := ch.ExchangeDeclare(t.Exchange, t.ExchangeType, true, false, false, false, nil); err != nil {
		return fmt.Errorf("declaring %s exchange %s: %w", t.ExchangeType, t.Exchange, err)
	}
	if err := ch.QueueBind(t.Queue, t.RoutingKey, t.Exchange, false, nil); err != nil {
		return fmt.Errorf("binding queue %s to exchange %s: %w", t.Queue, t.Exchange, err)
	}
	return nil
}
