<?php

declare(strict_types=1);

namespace App;

use Symfony\Component\Messenger\Envelope;
use Symfony\Component\Messenger\Exception\MessageDecodingFailedException;
use Symfony\Component\Messenger\Transport\Serialization\SerializerInterface;
use Symfony\Component\Serializer\SerializerInterface as SymfonySerializer;

/**
 * Messenger's transport serializer over the Symfony Serializer's JSON, as the seed configured it,
 * except that the message class comes from the body's "type" field rather than a "type" header:
 * iobench fills the queue, not Messenger, so its commands carry no PHP class name.
 */
final class BodySerializer implements SerializerInterface
{
    private const CLASSES = ['command' => StoreCustomer::class, 'event' => CustomerStored::class];

    public function __construct(private SymfonySerializer $serializer)
    {
    }

    public function decode(array $encodedEnvelope): Envelope
    {
        $data = $this->serializer->decode($encodedEnvelope['body'] ?? '', 'json');
        $class = self::CLASSES[$data['type'] ?? ''] ?? null;
        if ($class === null) {
            throw new MessageDecodingFailedException('neither a command nor an event');
        }

        return new Envelope($this->serializer->denormalize($data, $class, 'json'));
    }

    public function encode(Envelope $envelope): array
    {
        $message = $envelope->getMessage();

        return [
            'body' => $this->serializer->serialize($message, 'json'),
            'headers' => ['type' => \get_class($message), 'Content-Type' => 'application/json'],
        ];
    }
}
