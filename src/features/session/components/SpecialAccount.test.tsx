import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { withSpecialAccount } from '../../../test/specialAccount.ts';
import { demoAccountInfo, renderWithProviders, validAccount } from '../../../test/render.tsx';
import { PreSession } from './PreSession.tsx';

// The test environment has no special account; pin the local one ('gov') for these tests.
withSpecialAccount();

describe('PreSession for the special account', () => {
  it('shows the AI-summary tip and the digital-host label', () => {
    renderWithProviders(<PreSession />, { preloadedState: { account: validAccount({ userId: 'gov' }) } });
    expect(screen.getByText('Content is AI-summarised from public government information')).toBeInTheDocument();
    expect(screen.getByText('Digital host')).toBeInTheDocument();
  });

  it('shows them in the visitor language', () => {
    renderWithProviders(<PreSession />, { preloadedState: { account: validAccount({ userId: 'gov' }) }, lang: 'cht' });
    expect(screen.getByText('內容由AI根據政府公開資訊總結生成')).toBeInTheDocument();
    expect(screen.getByText('數位主持人')).toBeInTheDocument();
  });

  it('does not repeat an account label that already says digital host', () => {
    renderWithProviders(<PreSession />, {
      preloadedState: { account: validAccount({ userId: 'gov', info: { ...demoAccountInfo, label: 'Digital host' } }) },
    });
    expect(screen.getAllByText('Digital host')).toHaveLength(1);
  });

  it('shows neither for another account', () => {
    renderWithProviders(<PreSession />, { preloadedState: { account: validAccount({ userId: 'demo' }) } });
    expect(screen.queryByText('Digital host')).not.toBeInTheDocument();
  });
});
