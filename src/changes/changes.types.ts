import { GraphQLJSON } from 'graphql-scalars';
import { Field, Int, ObjectType } from 'type-graphql';
import type { ChangeEventView, ChangeFeedView, ChangeType, FieldChangeView } from './changes.service.js';

@ObjectType('FieldChange', { description: 'One field of the subject, before and after the change' })
export class FieldChangeType implements FieldChangeView {
  @Field({ description: 'The field, as the database names it (sales_status, start_price, status...)' })
  field!: string;
  @Field(() => GraphQLJSON, {
    nullable: true,
    description: 'The value before; null when the subject was created',
  })
  before!: unknown;
  @Field(() => GraphQLJSON, { nullable: true }) after!: unknown;
}

@ObjectType('ChangeSubject', { description: 'What changed' })
export class ChangeSubject {
  @Field({ description: 'project, building, floor_plan or document' }) type!: string;
  @Field(() => Int) id!: number;
  @Field(() => Int, { nullable: true, description: 'The project it belongs to' }) projectId!: number | null;
}

@ObjectType('ChangeEvent', {
  description: 'A committed change to a project, building, floor plan or document',
})
export class ChangeEventType implements ChangeEventView {
  @Field({ description: 'Unique and stable; webhook deliveries carry it for de-duplication' }) id!: string;
  @Field({ description: 'When the change committed, ISO 8601' }) occurredAt!: string;
  @Field(() => String, {
    description:
      'project.created, project.changed, building.created, building.changed, floor_plan.created, floor_plan.changed, document.published, document.superseded, document.indexed or document.failed',
  })
  type!: ChangeType;
  @Field(() => ChangeSubject) subject!: ChangeEventView['subject'];
  @Field(() => [FieldChangeType], { description: 'The fields that changed (all tracked fields on creation)' })
  changes!: FieldChangeView[];
}

@ObjectType('ChangeFeedMeta')
export class ChangeFeedMeta {
  @Field(() => Int) returned!: number;
  @Field({
    description:
      'Where to resume: pass it as after on the next call, also when this page is empty. Keep it between calls.',
  })
  nextCursor!: string;
  @Field({ description: 'More events are ready now: call again at once' }) hasMore!: boolean;
}

@ObjectType('ChangeFeed')
export class ChangeFeed implements ChangeFeedView {
  @Field(() => [ChangeEventType]) data!: ChangeEventView[];
  @Field(() => ChangeFeedMeta) meta!: ChangeFeedView['meta'];
}
