import { Field, InputType, Int, ObjectType } from 'type-graphql';
import type { WebhookDeliveryView, WebhookEndpointView } from './webhooks.service.js';

@ObjectType('WebhookEndpoint', {
  description: 'Where a team receives signed change events (Standard Webhooks)',
})
export class WebhookEndpointType implements WebhookEndpointView {
  @Field(() => Int) id!: number;
  @Field(() => Int) teamId!: number;
  @Field() url!: string;
  @Field(() => [String], { description: 'The event types sent; empty: every type' }) eventTypes!: string[];
  @Field({ description: 'false once disabled: after a 410 Gone, or a delivery that failed every retry' })
  enabled!: boolean;
  @Field(() => String, { nullable: true }) disabledReason!: string | null;
  @Field(() => String, { nullable: true, description: 'Since when deliveries fail, while they do' })
  failingSince!: string | null;
  @Field() createdAt!: string;
}

@ObjectType('CreatedWebhookEndpoint')
export class CreatedWebhookEndpoint {
  @Field(() => WebhookEndpointType) endpoint!: WebhookEndpointView;
  @Field({
    description:
      "The signing secret (whsec_...), shown only now: verify each delivery's webhook-signature with it (any Standard Webhooks library)",
  })
  secret!: string;
}

@InputType('CreateWebhookEndpointInput')
export class CreateWebhookEndpointInput {
  @Field(() => Int) teamId!: number;
  @Field({ description: 'An https:// URL on a public address' }) url!: string;
  @Field(() => [String], { nullable: true, description: 'Only these event types; omit for all' })
  eventTypes?: string[] | null;
}

@ObjectType('WebhookDelivery', { description: 'One event sent to one endpoint, with its latest attempt' })
export class WebhookDeliveryType implements WebhookDeliveryView {
  @Field() id!: string;
  @Field(() => Int) endpointId!: number;
  @Field({ description: 'The change event; its webhook-id is msg_<eventId> on every attempt' })
  eventId!: string;
  @Field() eventType!: string;
  @Field(() => String, { description: 'pending, delivered or failed' })
  status!: WebhookDeliveryView['status'];
  @Field(() => Int) attempts!: number;
  @Field(() => String, { nullable: true, description: 'When the next attempt is due, while pending' })
  nextAttemptAt!: string | null;
  @Field(() => String, { nullable: true }) lastAttemptAt!: string | null;
  @Field(() => Int, { nullable: true, description: 'The HTTP status of the last answer; null if none came' })
  lastStatusCode!: number | null;
  @Field(() => String, { nullable: true }) lastError!: string | null;
  @Field(() => Int, { nullable: true }) lastLatencyMs!: number | null;
  @Field(() => String, {
    nullable: true,
    description: 'The first 500 bytes of the last answer, no more is kept',
  })
  responseExcerpt!: string | null;
  @Field(() => String, { nullable: true }) deliveredAt!: string | null;
}
