/** The (business, owner) pair that every resource belongs to. */
export interface Scope {
  business: string;
  ownerId: string;
}
