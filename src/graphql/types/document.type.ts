import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType('Extraction', {
  description: 'One text extraction of a document; chunk ids belong to exactly one extraction',
})
export class ExtractionType {
  @Field(() => Int) id!: number;
  @Field({ description: 'pending, processing, completed, no_text or failed' }) status!: string;
  @Field(() => String, { nullable: true }) method!: string | null;
  @Field(() => String, { nullable: true }) extractorVersion!: string | null;
  @Field(() => Int) pageCount!: number;
  @Field(() => Int) rawTextLength!: number;
  @Field(() => String, { nullable: true, description: 'Why extraction failed, when it did' }) error!:
    string | null;
  @Field(() => Date, { nullable: true }) indexedAt!: Date | null;
}

@ObjectType('Document', { description: 'A PDF of a project (brochure, price list, ...)' })
export class DocumentType {
  @Field(() => Int) id!: number;
  @Field({ description: 'File name of the PDF' }) name!: string;
  @Field({ description: 'One of the eight document categories' }) category!: string;
  @Field(() => String, { nullable: true }) type!: string | null;
  @Field({ description: 'false for older revisions superseded by a newer upload' }) isLatest!: boolean;
  @Field(() => Int) byteSize!: number;
  @Field() contentHash!: string;
  @Field(() => Date) createdAt!: Date;
}
