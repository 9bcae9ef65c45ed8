package latex

import "strings"

// katexNonMathord lists the control sequences that KaTeX 0.6's symbol table
// (MIT licence, Khan Academy) knows in math mode with a class other than
// mathord: relations, binary operators, delimiters, punctuation, spacing and
// ordinary symbols such as \Gamma or \infty. The patched parser the
// reference uses turns every unknown token into a mathord, so this set is
// the only symbol fact its normalizer output depends on: under \mathrm a
// mathord is spelled out letter by letter (\mathrm{\alpha} gives
// "\ a l p h a") while these are kept whole. The control space "\ " is
// added separately. The list is data transcribed from that table.
var katexNonMathord = func() map[string]bool {
	m := map[string]bool{`\ `: true}
	for _, name := range strings.Fields(katexNonMathordList) {
		m[name] = true
	}
	return m
}()

const katexNonMathordList = `
\! \# \$ \% \& \( \) \, \: \; \Bbbk \Box \Bumpeq \Cap \Comp \Cup \Delta \Diamond \Doteq
\Downarrow \Finv \Game \Gamma \Im \Join \L \Lambda \Leftarrow \Leftrightarrow \Lleftarrow
\Longleftarrow \Longleftrightarrow \Longrightarrow \Lsh \M \Omega \Phi \Pi \Psi \Re
\Rightarrow \Rrightarrow \Rsh \S \Sigma \Subset \Supset \Theta \Uparrow \Updownarrow
\Upsilon \Vdash \Vert \Vvdash \Xi \\sim \_ \a \acute \aleph \amalg \angle \approx
\approxeq \arowtor5linv \ast \asymp \b \backepsilon \backprime \backsim \backsimeq
\backslash \bar \barwedge \because \beth \between \bigcap \bigcirc \bigcup \bigodot
\bigoplus \bigotimes \bigsqcup \bigstar \bigtriangledown \bigtriangleup \biguplus \bigvee
\bigwedge \blacklozenge \blacksquare \blacktriangle \blacktriangledown \blacktriangleleft
\blacktriangleright \boldmathr \bot \bowtie \boxdot \boxminus \boxplus \boxtimes \breve
\bullet \bumpeq \c \cap \cases \cdot \cdotp \cdots \centerdot \check \checkmark \circ
\circeq \circlearrowleft \circlearrowright \circledR \circledS \circledast \circledcirc
\circleddash \clubsuit \colon \complement \cong \coprod \cr \cup \curlyeqprec \curlyeqsucc
\curlyvee \curlywedge \curvearrowleft \curvearrowright \d \dag \dagger \daleth
\dashleftarrow \dashrightarrow \dashv \ddag \ddagger \ddot \ddots \diagdown \diagup
\diamond \diamonda \diamondsuit \digamma \dint \div \divideontimes \do \dot \doteq
\doteqdot \dotplus \dots \doublebarwedge \doublecap \doublecup \downarrow \downdownarrows
\downharpoonleft \downharpoonright \e \eixsts \ell \em \emptyset \enspace \eqcirc \eqsim
\eqslantgtr \eqslantless \equiv \eth \f \fallingdotseq \flat \forall \frown \g \ge \geq
\geqq \geqslant \gets \gg \ggg \gggtr \gimel \gnapprox \gneq \gneqq \gnsim \grave \gt
\gtrapprox \gtrdot \gtreqless \gtreqqless \gtrless \gtrsim \gvertneqq \h \hat \hbar
\heartsuit \hline \hookleftarrow \hookrightarrow \hskip \hslash \i \iiint \iint \in \infty
\int \intd \intercal \intf \intop \j \k \l \lVert \land \langle \lbrace \lbrack \lceil
\ldotp \ldots \le \leadsto \leftarrow \leftarrowtail \leftharpoondown \leftharpoonup
\leftleftarrows \leftrightarrow \leftrightarrows \leftrightharpoons \leftrightsquigarrow
\leftthreetimes \leq \leqq \leqslant \lessapprox \lessdot \lesseqgtr \lesseqqgtr \lessgtr
\lesssim \lfloor \lgroup \lhd \ll \llcorner \lll \llless \lmoustache \lnapprox \lneq
\lneqq \lnot \lnsim \longleftarrow \longleftrightarrow \longmapsto \longrightarrow
\looparrowleft \looparrowright \lor \lozenge \lrcorner \lt \ltimes \lvert \lvertneqq \m
\mapsto \mathbin \measuredangle \mho \mid \mit \models \mp \multimap \n \nLeftarrow
\nLeftrightarrow \nRightarrow \nVDash \nVdash \nabla \natural \nc \ncong \ne \nearrow \neg
\neq \nexists \ngeq \ngeqq \ngeqslant \ngtr \ni \nleftarrow \nleftrightarrow \nleq \nleqq
\nleqslant \nless \nmid \nonumber \not \notin \nparallel \nprec \npreceq \nrightarrow
\nshortmid \nshortparallel \nsim \nsubseteq \nsubseteqq \nsucc \nsucceq \nsupseteq
\nsupseteqq \ntriangleleft \ntrianglelefteq \ntriangleright \ntrianglerighteq \nvDash
\nvdash \nwarrow \o \odot \oint \ominus \oplus \oslash \otimes \overleftarrow
\overrightarrow \owns \parallel \partial \perp \pii \pitchfork \pm \prec \precapprox
\preccurlyeq \preceq \precnapprox \precneqq \precnsim \precsim \prime \prod \propto \qquad
\quad \rVert \rangle \rbrace \rbrack \rceil \restriction \rfloor \rgroup \rhd \rightarrow
\rightarrowtail \rightharpoondown \rightharpoonup \rightleftarrows \rightleftharpoons
\rightrightarrows \rightsquigarrow \rightthreetimes \risingdotseq \rmoustache \rtimes
\rvert \sb \searrow \setminus \sf \sharp \shortmid \shortparallel \sim \simeq \slash
\smallfrown \smallint \smallsetminus \smallskip \smallsmile \smile \sp \space \spadesuit
\sphericalangle \sqcap \sqcup \sqsubset \sqsubseteq \sqsupset \sqsupseteq \square \star
\subset \subseteq \subseteqq \subsetneq \subsetneqq \succ \succapprox \succcurlyeq \succeq
\succnapprox \succneqq \succnsim \succsim \sum \supset \supseteq \supseteqq \supsetneq
\supsetneqq \surd \swarrow \textbf \therefore \thickapprox \thicksim \thinspace \tilde
\times \to \top \triangle \triangledown \triangleleft \trianglelefteq \triangleq
\triangleright \trianglerighteq \tt \twoheadleftarrow \twoheadrightarrow \ulcorner
\underbrace \unitlength \unlhd \unrhd \uparrow \updownarrow \upharpoonleft \upharpoonright
\uplus \upuparrows \urcorner \vDash \varkappa \varnothing \varpropto \varsubsetneq
\varsubsetneqq \varsupsetneq \varsupsetneqq \vartriangle \vartriangleleft
\vartriangleright \vdash \vdots \vec \vee \veebar \vert \wedge \wedgee \widehat \widetilde
\wp \wr \yen \{ \| \}
`
