/**
 * Deleting a platform is confirmed by typing its name exactly (the API checks the same with
 * `confirmName`): case, spaces and all, so a near miss never deletes.
 */
export function deleteConfirmed(typed: string, platformName: string): boolean {
  return platformName.length > 0 && typed === platformName;
}
