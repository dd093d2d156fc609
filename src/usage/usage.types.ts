import { Field, Int, ObjectType } from 'type-graphql';
import type { CredentialUsageView, KeyWindowView, TeamUsageView } from './usage.service.js';
import type { UsageKind } from './usage.counter.js';

@ObjectType('CredentialUsage', { description: "One key's or token's requests per day" })
export class CredentialUsageType implements CredentialUsageView {
  @Field(() => String, { description: 'api-key or access-token' }) kind!: UsageKind;
  @Field(() => Int) id!: number;
  @Field() name!: string;
  @Field() prefix!: string;
  @Field(() => String, { nullable: true, description: 'For tokens: personal or oauth (a connected client)' })
  tokenKind!: string | null;
  @Field(() => Int) total!: number;
  @Field(() => [Int], { description: 'Requests per day, oldest first, one entry per day of TeamUsage.days' })
  daily!: number[];
}

@ObjectType('KeyWindow', { description: "An API key's current rate-limit window for one Fusion scope" })
export class KeyWindowType implements KeyWindowView {
  @Field(() => Int) apiKeyId!: number;
  @Field() apiKeyName!: string;
  @Field() scope!: string;
  @Field(() => Int) limit!: number;
  @Field(() => Int) remaining!: number;
  @Field(() => Int, {
    nullable: true,
    description: 'Seconds until the window resets; null when none is open',
  })
  resetSeconds!: number | null;
}

@ObjectType('TeamUsage', {
  description:
    'Requests per API key and MCP access token per day (UTC), written in the background: the figures lag by at most USAGE_FLUSH_INTERVAL_MS',
})
export class TeamUsageType implements TeamUsageView {
  @Field(() => [String], { description: 'The days of the period, oldest first (YYYY-MM-DD)' })
  days!: string[];
  @Field(() => [Int], { description: 'All counted requests per day' }) totals!: number[];
  @Field(() => [CredentialUsageType]) credentials!: CredentialUsageView[];
  @Field(() => [KeyWindowType]) windows!: KeyWindowView[];
}
