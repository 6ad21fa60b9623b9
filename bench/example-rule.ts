/**
 * The example launch rule of docs/rules.md, as the benches run it (bench/rule.ts beside blacklist
 * alone, bench/provider-budget.ts for its calls per login): blacklist under the operator's `launch`
 * policy + age ≥ 30 days + (the collection or the snapshot list) + not on the deny list + 2 of
 * (tier bronze, activity, nodebt). The lists are `snapshot.txt` and `denied.txt` beside the
 * policies file.
 */
export function exampleLaunchRule({ collection, tierMint, tierAmount }: { collection: string; tierMint: string; tierAmount: string }) {
  return {
    all: [
      { feature: 'blacklist', policy: 'launch' },
      { feature: 'age', min_wallet_age_days: '30' },
      { any: [{ feature: 'collection', collections: [collection] }, { wallets: 'snapshot.txt' }] },
      { not: { wallets: 'denied.txt' } },
      {
        atLeast: 2,
        of: [
          { feature: 'tier', tier_config: { bronze: { mint: tierMint, amount: tierAmount } } },
          { feature: 'activity', min_transactions: '5', time_period_days: '30' },
          { feature: 'nodebt' },
        ],
      },
    ],
  };
}
