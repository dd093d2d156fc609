import { Field, Int, ObjectType } from 'type-graphql';
import type { NumberChange } from './line-diff.js';
import type { RevisionChangeView, RevisionComparisonView, RevisionSideView } from './revisions.service.js';

@ObjectType('NumberChange', { description: 'A number of a line that changed, as each revision prints it' })
export class NumberChangeType implements NumberChange {
  @Field({ description: 'As the older revision prints it, e.g. "$1,249,900" or "5%"' }) before!: string;
  @Field({ description: 'As the newer revision prints it' }) after!: string;
}

@ObjectType('RevisionSide', { description: 'One side of a change: the line and where it stands' })
export class RevisionSide implements RevisionSideView {
  @Field(() => Int) documentId!: number;
  @Field(() => Int) pageNumber!: number;
  @Field({
    description:
      "SHA-256 of the page's normalized text, as in stable citations; empty when this revision has no such page",
  })
  textHash!: string;
  @Field({ description: 'The line, white space folded; at most 300 characters' }) text!: string;
}

@ObjectType('RevisionChange', { description: 'A line removed, added, or changed only in its numbers' })
export class RevisionChangeType implements RevisionChangeView {
  @Field(() => String, {
    description:
      'removed (only in the older revision), added (only in the newer) or changed (the same line but for the numbers listed)',
  })
  kind!: 'added' | 'removed' | 'changed';
  @Field(() => Int) pageNumber!: number;
  @Field(() => RevisionSide, { nullable: true, description: "The older revision's line; null when added" })
  before!: RevisionSideView | null;
  @Field(() => RevisionSide, { nullable: true, description: "The newer revision's line; null when removed" })
  after!: RevisionSideView | null;
  @Field(() => [NumberChangeType], {
    description: 'For changed lines: each number that differs, in line order',
  })
  numbers!: NumberChange[];
}

@ObjectType('RevisionComparisonMeta')
export class RevisionComparisonMeta {
  @Field(() => Int) projectId!: number;
  @Field(() => Int, { description: 'The older revision' }) beforeDocumentId!: number;
  @Field(() => Int, { description: 'The newer revision' }) afterDocumentId!: number;
  @Field(() => Int, { description: 'Pages in either revision' }) pagesCompared!: number;
  @Field(() => Int) pagesChanged!: number;
  @Field(() => Int, { description: 'Changes in the whole comparison' }) totalChanges!: number;
  @Field(() => Int) returned!: number;
  @Field(() => String, {
    nullable: true,
    description: 'Pass as cursor to read the next changes; null on the last page',
  })
  nextCursor!: string | null;
}

@ObjectType('RevisionComparison')
export class RevisionComparison implements RevisionComparisonView {
  @Field(() => [RevisionChangeType]) data!: RevisionChangeView[];
  @Field(() => RevisionComparisonMeta) meta!: RevisionComparisonView['meta'];
}
