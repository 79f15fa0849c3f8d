// Each page's heading takes the focus when the page opens after a hash navigation, so keyboard and
// screen-reader users land on the new content; the tab's title follows.
import { useEffect, useRef, type ReactNode } from 'react';
import { hasNavigated } from '../router.ts';

export function PageTitle({ children, title }: { children: ReactNode; title: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · gigmarket`;
    if (hasNavigated()) ref.current?.focus();
  }, [title]);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children}
    </h1>
  );
}
