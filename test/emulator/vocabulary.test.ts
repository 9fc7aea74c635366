import { expect, it } from 'vitest';
import * as emulator from '../../src/emulator/vocabulary.js';
import * as product from '../../src/vocabulary.js';

/**
 * The emulator writes its vocabularies from the references itself (it plays the server mftops did
 * not write); the product has its own. Where the references fix a list, the two must agree.
 */
it('the emulator and the product read the same closed vocabularies from the references', () => {
  expect(emulator.ACL_PERMISSION_KEYS).toEqual(product.ACL_PERMISSIONS);
  expect(emulator.FOLDER_PERMISSION_KEYS).toEqual(product.FOLDER_PERMISSIONS);
  expect(emulator.SHARE_PERMISSION_KEYS).toEqual(product.SHARE_PERMISSIONS);
  expect(emulator.DAY_NAMES).toEqual(product.WEEK_DAYS);
  expect(emulator.SHORT_DAY_NAMES).toEqual(product.SHORT_WEEK_DAYS);
  expect(emulator.MIC_STEP_KEYS).toEqual(product.MIC_STEP_NAMES);
});
