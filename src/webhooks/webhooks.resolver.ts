import { Arg, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../context/context.js';
import { describeRange, WEBHOOK_DELIVERIES_LIMIT } from '../limits.js';
import * as webhooks from './webhooks.service.js';
import {
  CreatedWebhookEndpoint,
  CreateWebhookEndpointInput,
  WebhookDeliveryType,
  WebhookEndpointType,
} from './webhooks.types.js';

/** A team's webhook endpoints and delivery log: owners and admins of Pro and Elite teams. */
@Resolver()
export class WebhooksResolver {
  @Query(() => [WebhookEndpointType], { description: "The team's webhook endpoints" })
  webhookEndpoints(
    @Ctx() ctx: RequestContext,
    @Arg('teamId', () => Int) teamId: number,
  ): Promise<webhooks.WebhookEndpointView[]> {
    return webhooks.listEndpoints(ctx.em, ctx.viewer, teamId);
  }

  @Query(() => [WebhookDeliveryType], { description: "An endpoint's deliveries, newest first" })
  webhookDeliveries(
    @Ctx() ctx: RequestContext,
    @Arg('endpointId', () => Int) endpointId: number,
    @Arg('first', () => Int, { nullable: true, description: describeRange(WEBHOOK_DELIVERIES_LIMIT) })
    first: number | null,
    @Arg('before', () => String, { nullable: true, description: 'Deliveries older than this delivery id' })
    before: string | null,
  ): Promise<webhooks.WebhookDeliveryView[]> {
    return webhooks.listDeliveries(ctx.em, ctx.viewer, { endpointId, first, before });
  }

  @Mutation(() => CreatedWebhookEndpoint, {
    description: `Registers an endpoint (at most ${webhooks.MAX_ENDPOINTS_PER_TEAM} a team); the signing secret is returned only here`,
  })
  createWebhookEndpoint(
    @Ctx() ctx: RequestContext,
    @Arg('input', () => CreateWebhookEndpointInput) input: CreateWebhookEndpointInput,
  ): Promise<{ endpoint: webhooks.WebhookEndpointView; secret: string }> {
    return webhooks.createEndpoint(ctx.em, ctx.viewer, input, ctx.deps.config.webhooks.allowLoopback);
  }

  @Mutation(() => Boolean, { description: 'Deletes an endpoint and its delivery log' })
  deleteWebhookEndpoint(@Ctx() ctx: RequestContext, @Arg('id', () => Int) id: number): Promise<boolean> {
    return webhooks.deleteEndpoint(ctx.em, ctx.viewer, id);
  }

  @Mutation(() => WebhookEndpointType, { description: 'Turns a disabled endpoint back on' })
  enableWebhookEndpoint(
    @Ctx() ctx: RequestContext,
    @Arg('id', () => Int) id: number,
  ): Promise<webhooks.WebhookEndpointView> {
    return webhooks.enableEndpoint(ctx.em, ctx.viewer, id);
  }

  @Mutation(() => WebhookEndpointType, {
    description: 'Turns an endpoint off: nothing more is sent to it, and deliveries still waiting fail',
  })
  disableWebhookEndpoint(
    @Ctx() ctx: RequestContext,
    @Arg('id', () => Int) id: number,
  ): Promise<webhooks.WebhookEndpointView> {
    return webhooks.disableEndpoint(ctx.em, ctx.viewer, id);
  }

  @Mutation(() => WebhookDeliveryType, {
    description: 'Sends a delivery again now, with the same webhook-id',
  })
  redeliverWebhook(
    @Ctx() ctx: RequestContext,
    @Arg('id', () => String) id: string,
  ): Promise<webhooks.WebhookDeliveryView> {
    return webhooks.redeliver(ctx.em, ctx.viewer, id);
  }
}
